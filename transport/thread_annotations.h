// Lock annotations for clang's -Wthread-safety (tools/check_thread_safety.sh),
// in the style of abseil's thread_annotations.h, without depending on it; and
// the annotated Mutex / MutexLock / SharedMutex the analysis needs (libstdc++'s
// std::mutex carries no annotations). Under gcc the macros expand to nothing.
//
// Example (declares: thread_annotations):
//   #include <vector>
//   class Queue {
//    public:
//     void push(int v) WS_EXCLUDES(mu_) {
//       MutexLock lock(mu_);
//       items_.push_back(v);
//     }
//    private:
//     Mutex mu_;
//     std::vector<int> items_ WS_GUARDED_BY(mu_);
//   };
//
// Thread-safety: Mutex and SharedMutex are std::mutex / std::shared_mutex.
#pragma once

#include <mutex>
#include <shared_mutex>

#if defined(__clang__)
#define WS_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define WS_THREAD_ANNOTATION(x)
#endif

#define WS_CAPABILITY(x) WS_THREAD_ANNOTATION(capability(x))
#define WS_SCOPED_CAPABILITY WS_THREAD_ANNOTATION(scoped_lockable)
#define WS_GUARDED_BY(x) WS_THREAD_ANNOTATION(guarded_by(x))
#define WS_PT_GUARDED_BY(x) WS_THREAD_ANNOTATION(pt_guarded_by(x))
#define WS_REQUIRES(...) WS_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define WS_REQUIRES_SHARED(...) WS_THREAD_ANNOTATION(requires_shared_capability(__VA_ARGS__))
#define WS_ACQUIRE(...) WS_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define WS_ACQUIRE_SHARED(...) WS_THREAD_ANNOTATION(acquire_shared_capability(__VA_ARGS__))
#define WS_RELEASE(...) WS_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define WS_RELEASE_SHARED(...) WS_THREAD_ANNOTATION(release_shared_capability(__VA_ARGS__))
#define WS_RELEASE_GENERIC(...) WS_THREAD_ANNOTATION(release_generic_capability(__VA_ARGS__))
#define WS_EXCLUDES(...) WS_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
#define WS_RETURN_CAPABILITY(x) WS_THREAD_ANNOTATION(lock_returned(x))
#define WS_NO_THREAD_SAFETY_ANALYSIS WS_THREAD_ANNOTATION(no_thread_safety_analysis)

namespace wirestream::transport {

class WS_CAPABILITY("mutex") Mutex {
 public:
  void lock() WS_ACQUIRE() { mu_.lock(); }
  void unlock() WS_RELEASE() { mu_.unlock(); }

 private:
  std::mutex mu_;
};

class WS_CAPABILITY("shared_mutex") SharedMutex {
 public:
  void lock() WS_ACQUIRE() { mu_.lock(); }
  void unlock() WS_RELEASE() { mu_.unlock(); }
  void lock_shared() WS_ACQUIRE_SHARED() { mu_.lock_shared(); }
  void unlock_shared() WS_RELEASE_SHARED() { mu_.unlock_shared(); }

 private:
  std::shared_mutex mu_;
};

// Holds `mu` for its scope; unlock() ends it early.
class WS_SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex& mu) WS_ACQUIRE(mu) : mu_(mu) { mu_.lock(); }
  ~MutexLock() WS_RELEASE() {
    if (held_) mu_.unlock();
  }
  void unlock() WS_RELEASE() {
    held_ = false;
    mu_.unlock();
  }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex& mu_;
  bool held_ = true;
};

class WS_SCOPED_CAPABILITY WriterLock {
 public:
  explicit WriterLock(SharedMutex& mu) WS_ACQUIRE(mu) : mu_(mu) { mu_.lock(); }
  ~WriterLock() WS_RELEASE() { mu_.unlock(); }
  WriterLock(const WriterLock&) = delete;
  WriterLock& operator=(const WriterLock&) = delete;

 private:
  SharedMutex& mu_;
};

class WS_SCOPED_CAPABILITY ReaderLock {
 public:
  explicit ReaderLock(SharedMutex& mu) WS_ACQUIRE_SHARED(mu) : mu_(mu) { mu_.lock_shared(); }
  ~ReaderLock() WS_RELEASE() { mu_.unlock_shared(); }
  ReaderLock(const ReaderLock&) = delete;
  ReaderLock& operator=(const ReaderLock&) = delete;

 private:
  SharedMutex& mu_;
};

}  // namespace wirestream::transport
