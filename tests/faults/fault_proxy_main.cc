// fault_proxy: FaultProxy (proxy.h) as a program, driven through a UNIX
// socket that takes one command a line and answers one line.
//
//   fault_proxy --listen 127.0.0.1:9400 --upstream 10.77.0.2:9300 --control /tmp/p0.sock
//   fault_proxy --control /tmp/p0.sock --send "delay 100 50"   # prints "ok"
//
// The proxy serves until SIGTERM or SIGINT. --send exits 0 when the answer is
// not an error, 1 otherwise.
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <iostream>
#include <string>
#include <thread>

#include "tests/faults/proxy.h"

namespace {

std::pair<std::string, uint16_t> hostPort(const std::string& s) {
  auto colon = s.rfind(':');
  if (colon == std::string::npos) throw std::runtime_error("want HOST:PORT, got " + s);
  return {s.substr(0, colon), static_cast<uint16_t>(std::stoi(s.substr(colon + 1)))};
}

sockaddr_un unixAddress(const std::string& path) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  if (path.size() >= sizeof a.sun_path) throw std::runtime_error("control path too long");
  std::memcpy(a.sun_path, path.c_str(), path.size() + 1);
  return a;
}

std::string readLine(int fd) {
  std::string line;
  char c;
  while (::read(fd, &c, 1) == 1 && c != '\n') line += c;
  return line;
}

int send(const std::string& control, const std::string& command) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un a = unixAddress(control);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    std::cerr << "fault_proxy: cannot connect to " << control << ": " << std::strerror(errno)
              << "\n";
    return 1;
  }
  std::string line = command + "\n";
  if (::write(fd, line.data(), line.size()) != static_cast<ssize_t>(line.size())) return 1;
  std::string answer = readLine(fd);
  ::close(fd);
  std::cout << answer << "\n";
  return answer.rfind("error", 0) == 0 || answer.empty() ? 1 : 0;
}

int serve(const std::string& listen, const std::string& upstream, const std::string& control) {
  auto [lh, lp] = hostPort(listen);
  auto [uh, up] = hostPort(upstream);
  // SIGTERM/SIGINT wait in sigwait below, not in a handler.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  wirestream::faults::FaultProxy proxy(lh, lp, uh, up);
  uint16_t port = proxy.start();
  ::unlink(control.c_str());
  int cfd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un a = unixAddress(control);
  if (::bind(cfd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(cfd, 16) != 0) {
    std::cerr << "fault_proxy: cannot listen on " << control << ": " << std::strerror(errno)
              << "\n";
    return 1;
  }
  std::thread control_thread([&] {
    while (true) {
      int c = ::accept(cfd, nullptr, nullptr);
      if (c < 0) return;  // shut down below
      std::string answer = proxy.command(readLine(c)) + "\n";
      (void)!::write(c, answer.data(), answer.size());
      ::close(c);
    }
  });
  std::cout << "fault_proxy: " << lh << ":" << port << " -> " << upstream << ", control " << control
            << std::endl;
  int sig = 0;
  sigwait(&stop_signals, &sig);
  ::shutdown(cfd, SHUT_RDWR);
  control_thread.join();
  ::close(cfd);
  ::unlink(control.c_str());
  proxy.stop();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string listen, upstream, control, command;
  CLI::App app{"fault_proxy: a fault-injecting TCP forwarder (tests/faults/proxy.h)"};
  app.add_option("--listen", listen, "HOST:PORT to accept on");
  app.add_option("--upstream", upstream, "HOST:PORT to forward to");
  app.add_option("--control", control, "UNIX socket for commands")->required();
  app.add_option("--send", command, "Send this command to a running proxy and print the answer");
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "fault_proxy: " << e.what() << " (see --help)\n";
    return 2;
  }
  try {
    if (!command.empty()) return send(control, command);
    if (listen.empty() || upstream.empty()) {
      std::cerr << "fault_proxy: --listen and --upstream are required to serve\n";
      return 2;
    }
    return serve(listen, upstream, control);
  } catch (const std::exception& e) {
    std::cerr << "fault_proxy: " << e.what() << "\n";
    return 1;
  }
}
