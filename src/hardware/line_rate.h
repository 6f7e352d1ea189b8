// The line rate of the network links the ranks use, where the system
// reports one: an Ethernet interface's negotiated speed (sysfs), an
// InfiniBand port's rate and width, or, for a shaped or emulated link the
// system cannot describe (a tc rate on a veth), SHARDROOF_LINE_RATE set by
// whoever shaped it (scripts/emulate-links.sh does). Ranks of one host in
// one network namespace talk through memory: no line rate, and none is
// guessed. Per process; the ranks' views are gathered in ceilings/.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardroof::hw {

struct Ipv4Net {
  std::uint32_t address = 0;  // host byte order
  int prefix = 32;
  bool contains(std::uint32_t other) const;
  bool operator==(const Ipv4Net&) const = default;
};

struct NetInterface {
  std::string name;                // "eth0", "ib0"
  std::vector<Ipv4Net> addresses;
  double bits_per_s = 0;           // 0: the system reports no rate
  std::string rate_source;         // where the rate comes from, for the output
};

// An active InfiniBand (or RoCE) port: MPI may use it through verbs with
// no IP address on the path.
struct IbPort {
  std::string device;   // "mlx5_0"
  int port = 1;
  double bits_per_s = 0;
  std::string rate_text;  // the port's own words, "400 Gb/sec (4X NDR)"
};

// One rank's view of its network.
struct HostNet {
  std::string host;
  std::string netns;  // the network namespace's identity, "net:[4026531840]"
  std::vector<NetInterface> interfaces;  // up, not loopback, with an IPv4 address
  std::vector<IbPort> ib_ports;          // active ports
};

HostNet local_host_net(const std::string& host);

// Text <-> HostNet, to gather the ranks' views (one line of JSON).
std::string to_text(const HostNet& net);
HostNet host_net_from_text(std::string_view text);

// The rate of the link from `from` toward `to`: the fastest interface of
// `from` on a subnet that holds one of `to`'s addresses, or, where no IP
// path is seen (MPI over verbs), the fastest active InfiniBand port that
// both ends have. nullopt when the two share a host and namespace (memory)
// or nothing reports a rate.
struct LineRate {
  double bits_per_s = 0;
  std::string where;   // "eth0", "mlx5_0 port 1"
  std::string source;  // "sysfs speed", "InfiniBand port rate 400 Gb/sec (4X NDR)", "SHARDROOF_LINE_RATE"
};
bool same_machine(const HostNet& a, const HostNet& b);
std::optional<LineRate> line_rate_toward(const HostNet& from, const HostNet& to);

// The line rate of the link between ranks a and b of `nets` (rank order):
// the slower direction's; nullopt where they share a host (memory) or
// nothing reports one.
std::optional<LineRate> pair_line_rate(const std::vector<HostNet>& nets, int a, int b);

// The ring probe's links (every rank to its right neighbour): the slowest
// line rate among the pairs that leave a host, and how many pairs share
// one. `rate` is nullopt when no pair leaves a host or none reports a rate.
struct RingLineRate {
  std::optional<hw::LineRate> rate;
  int pairs = 0;
  int pairs_in_memory = 0;  // both ends on one host and namespace
  int pairs_unknown = 0;    // leave a host, but no rate is reported
};
RingLineRate ring_line_rate(const std::vector<HostNet>& nets);

// "1gbit", "500mbit", "10Gbit", "400gbit", "1e9bit" (tc's words) or a bare
// number of bits per second; nullopt when not a rate.
std::optional<double> parse_bits_per_s(std::string_view text);
// "400 Gb/sec (4X NDR)" -> 4e11 (sysfs infiniband .../ports/N/rate); nullopt when not one.
std::optional<double> parse_ib_rate(std::string_view text);
// "1 Gbit/s", "400 Gbit/s", "0.5 Gbit/s"
std::string bits_text(double bits_per_s);

}  // namespace shardroof::hw
