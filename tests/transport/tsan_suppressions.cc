// ThreadSanitizer suppressions for the transport tests, the suite CI runs under TSan.
//
// libstdc++ is not built with TSan, and std::exception_ptr counts its references inside
// libstdc++.so. When a test rethrows a future's exception (future::get) and the I/O thread
// later drops the last reference to it (destroying the pending call's promise), TSan cannot
// see the order the atomic count gives them and reports the exception's destruction as a race
// with the test's reads of what(). Only reports with exception_ptr::_M_release on a stack are
// suppressed; a race anywhere else still fails the run.
extern "C" const char* __tsan_default_suppressions() {
  return "race:std::__exception_ptr::exception_ptr::_M_release\n";
}
