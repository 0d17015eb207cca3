// Deeply nested hostile input on a thread with a 256 KiB stack: the nesting
// limit turns it into LimitExceededError long before the stack runs out, and
// a tree at the limit can be read, compared, hashed, printed, written and
// destroyed on that stack.
#include <gtest/gtest.h>
#include <pthread.h>

#include <exception>
#include <functional>

#include "stream/structured/generic_value.h"
#include "stream/structured/structured_stream.h"
#include "tests/stream/structured_test_util.h"

namespace wirestream {
namespace {

using GV = GenericValue;
using testing::bytesOf;
using testing::writeAt;

constexpr size_t kSmallStack = 256 * 1024;

// Runs `fn` on a new thread with a `stack_bytes` stack; rethrows what it threw.
void runOnSmallStack(const std::function<void()>& fn, size_t stack_bytes = kSmallStack) {
  struct Job {
    const std::function<void()>* fn;
    std::exception_ptr error;
  } job{&fn, nullptr};
  pthread_attr_t attr;
  ASSERT_EQ(pthread_attr_init(&attr), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attr, stack_bytes), 0);
  pthread_t thread;
  ASSERT_EQ(pthread_create(
                &thread, &attr,
                [](void* arg) -> void* {
                  auto* j = static_cast<Job*>(arg);
                  try {
                    (*j->fn)();
                  } catch (...) {
                    j->error = std::current_exception();
                  }
                  return nullptr;
                },
                &job),
            0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
  if (job.error) std::rethrow_exception(job.error);
}

std::vector<uint8_t> repeated(const std::vector<uint8_t>& open, size_t times,
                              const std::vector<uint8_t>& close) {
  std::vector<uint8_t> out;
  out.reserve(open.size() * times + close.size());
  for (size_t i = 0; i < times; ++i) out.insert(out.end(), open.begin(), open.end());
  out.insert(out.end(), close.begin(), close.end());
  return out;
}

TEST(NestingLimitTest, MillionLevelsOnASmallStackIsLimitExceeded) {
  struct Shape {
    const char* what;
    std::vector<uint8_t> open;
    std::vector<uint8_t> close;
  } shapes[] = {
      {"lists", {0x07, 0x01}, {0xff}},
      {"object arrays", {0x08, 0x01}, {0xff}},
      {"sets", {0x19, 0x01}, {0xff}},
      {"map values", {0x0a, 0x01, 0x00, 0x01, 0x61}, {0xff}},
      {"map keys", {0x09, 0x01}, {0xff, 0xff}},
      // Truncated: the limit fires before the missing end is noticed.
      {"unterminated lists", {0x07, 0x01}, {}},
  };
  for (const Shape& s : shapes) {
    SCOPED_TRACE(s.what);
    auto bytes = repeated(s.open, 1000000, s.close);
    runOnSmallStack([&] {
      ByteArrayStreamInput in(bytes);
      try {
        (void)readGenericValue(in);
        ADD_FAILURE() << "expected LimitExceededError";
      } catch (const LimitExceededError& e) {
        EXPECT_STREQ(e.what(), "nesting depth [101] exceeds the limit of [100]");
      }
      EXPECT_EQ(in.nestingDepth(), 0);
    });
  }
}

TEST(NestingLimitTest, TreeAtTheLimitWorksOnASmallStack) {
  // 100 levels alternating every container kind, with scalars beside them.
  GV leaf = GV::ofMap({{"x", GV::ofIntArray({1, 2})}});
  GV tree = GV("innermost");
  for (int level = 0; level < 100; ++level) {
    switch (level % 6) {
      case 0:
        tree = GV::ofList({std::move(tree), 1});
        break;
      case 1:
        tree = GV::ofObjectArray({nullptr, std::move(tree)});
        break;
      case 2:
        tree = GV::ofOrderedMap({{"k", std::move(tree)}, {"n", GV::ofLong(3)}});
        break;
      case 3:
        tree = GV::ofMap({{GV::ofInt(level), std::move(tree)}});
        break;
      case 4:
        tree = GV::ofOrderedSet({std::move(tree), GV::ofText("t")});
        break;
      default:
        tree = GV::ofSet({GV::ofShort(1), std::move(tree)});
        break;
    }
  }
  auto bytes = bytesOf([&](StreamOutput& out) { writeGenericValue(out, tree); });
  std::string text = tree.toString();
  size_t hash = tree.hash();
  runOnSmallStack([&] {
    ByteArrayStreamInput in(bytes);
    GV back = readGenericValue(in);
    EXPECT_EQ(back, tree);
    EXPECT_EQ(back.hash(), hash);
    EXPECT_EQ(back.toString(), text);
    EXPECT_EQ(bytesOf([&](StreamOutput& out) { writeGenericValue(out, back); }), bytes);
    GV copy = back;
    EXPECT_EQ(copy, back);
  });
  // One level more is refused at the default limit, accepted when raised.
  GV deeper = GV::ofList({tree});
  auto deeper_bytes = bytesOf([&](StreamOutput& out) { writeGenericValue(out, deeper); });
  runOnSmallStack([&] {
    ByteArrayStreamInput in(deeper_bytes);
    EXPECT_THROW(readGenericValue(in), LimitExceededError);
    ByteArrayStreamInput raised(deeper_bytes);
    raised.setMaxNestingDepth(101);
    EXPECT_EQ(readGenericValue(raised), deeper);
  });
}

}  // namespace
}  // namespace wirestream

namespace wirestream {
namespace {

TEST(NestingLevelsTest, EnterLeaveAndUnwind) {
  std::vector<uint8_t> none;
  ByteArrayStreamInput in(none);
  in.setMaxNestingDepth(3);
  {
    StreamInput::NestingScope outer(in);
    StreamInput::NestingLevels levels(in);
    levels.enter();
    levels.enter();
    EXPECT_EQ(in.nestingDepth(), 3);
    try {
      levels.enter();
      FAIL() << "a fourth level was entered";
    } catch (const LimitExceededError& e) {
      EXPECT_STREQ(e.what(), "nesting depth [4] exceeds the limit of [3]");
    }
    EXPECT_EQ(in.nestingDepth(), 3);
    levels.leave();
    EXPECT_EQ(in.nestingDepth(), 2);
    levels.enter();
    // The destructor leaves the two levels still entered; the scope its one.
  }
  EXPECT_EQ(in.nestingDepth(), 0);
  EXPECT_THROW(
      {
        StreamInput::NestingLevels levels(in);
        for (;;) levels.enter();
      },
      LimitExceededError);
  EXPECT_EQ(in.nestingDepth(), 0);
}

}  // namespace
}  // namespace wirestream
