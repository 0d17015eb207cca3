# Cross-compiles wirestream for aarch64 Linux with Debian's cross compiler and the arm64
# libraries of a multiarch system; tests run under qemu-user (tools/check_aarch64.sh
# installs all of it and runs the suites):
#
#   dpkg --add-architecture arm64 && apt-get update
#   apt-get install g++-aarch64-linux-gnu qemu-user libhwy-dev:arm64 libgtest-dev:arm64 ...
#   cmake -S . -B build-arm -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
#   cmake --build build-arm && ctest --test-dir build-arm
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
# Multiarch: headers in /usr/include (+ /usr/include/aarch64-linux-gnu, which the cross
# compiler searches), libraries and CMake packages in /usr/lib/aarch64-linux-gnu. The
# host's own libraries sit in /usr/lib/x86_64-linux-gnu, which no search reaches.
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu /)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# pkg-config (FindOpenSSL asks it first) must answer with the arm64 .pc files only.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")
# ctest (and add_test commands naming a target) run the binaries through qemu. The loader,
# libc and libstdc++ must come from one glibc build: the multiarch arm64 ones (libc6:arm64,
# which every arm64 -dev package pulls in), with -L /. Debian's cross toolchain carries an
# older glibc build in /usr/aarch64-linux-gnu; its loader with the multiarch libc hangs the
# first program that starts a thread (seen with qemu 7.2), so it is used only where no
# multiarch loader is installed.
find_program(WS_QEMU_AARCH64 NAMES qemu-aarch64 qemu-aarch64-static REQUIRED)
if(EXISTS /lib/aarch64-linux-gnu/ld-linux-aarch64.so.1)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${WS_QEMU_AARCH64} -L /)
else()
  set(CMAKE_CROSSCOMPILING_EMULATOR ${WS_QEMU_AARCH64} -L /usr/aarch64-linux-gnu)
endif()
