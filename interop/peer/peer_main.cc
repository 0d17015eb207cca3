// `peer`: the wirestream side of the transport check (TransportCheck.java). TODO (owned by
// its helper).
#include <iostream>

int main() {
  std::cerr << "peer: not written yet\n";
  return 1;
}
