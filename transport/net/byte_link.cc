#include "transport/net/byte_link.h"

#include "transport/net/plain_link.h"
#include "transport/net/tls_link.h"

namespace wirestream::transport::net {

std::unique_ptr<ByteLink> makeByteLink(boost::asio::ip::tcp::socket socket, Strand strand,
                                       ByteLink::Owner& owner, std::optional<TlsLinkSettings> tls) {
  if (tls) return std::make_unique<TlsLink>(std::move(socket), std::move(strand), owner, *tls);
  return std::make_unique<PlainLink>(std::move(socket), std::move(strand), owner);
}

}  // namespace wirestream::transport::net
