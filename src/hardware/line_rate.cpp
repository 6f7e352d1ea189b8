#include "hardware/line_rate.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

namespace shardroof::hw {
namespace {

namespace fs = std::filesystem;

std::string read_line(const fs::path& p) {
  std::ifstream in(p);
  std::string s;
  std::getline(in, s);
  return s;
}

int prefix_of(std::uint32_t mask) {
  int n = 0;
  while (mask & 0x80000000u) {
    ++n;
    mask <<= 1;
  }
  return n;
}

// The rate the system reports for an interface: an InfiniBand port's
// (IPoIB), else the negotiated Ethernet speed in Mb/s (-1 or absent when
// unknown, the link down, or a virtual device that reports none).
void fill_rate(NetInterface& nif) {
  const fs::path dev = fs::path("/sys/class/net") / nif.name;
  std::error_code ec;
  const fs::path ib = dev / "device" / "infiniband";
  if (fs::is_directory(ib, ec)) {
    int port = 1;
    if (const std::string p = read_line(dev / "dev_port"); !p.empty()) port = std::atoi(p.c_str()) + 1;
    for (const auto& d : fs::directory_iterator(ib, ec)) {
      const std::string text = read_line(d.path() / "ports" / std::to_string(port) / "rate");
      if (const auto r = parse_ib_rate(text)) {
        nif.bits_per_s = *r;
        nif.rate_source = "InfiniBand port rate " + text;
        return;
      }
    }
  }
  const std::string speed = read_line(dev / "speed");
  char* end = nullptr;
  const double mbit = std::strtod(speed.c_str(), &end);
  if (end != speed.c_str() && mbit > 0) {
    nif.bits_per_s = mbit * 1e6;
    nif.rate_source = "negotiated speed (sysfs)";
  }
}

std::vector<IbPort> active_ib_ports() {
  std::vector<IbPort> out;
  std::error_code ec;
  const fs::path root("/sys/class/infiniband");
  if (!fs::is_directory(root, ec)) return out;
  for (const auto& d : fs::directory_iterator(root, ec)) {
    std::error_code ec2;
    for (const auto& p : fs::directory_iterator(d.path() / "ports", ec2)) {
      if (read_line(p.path() / "state").find("ACTIVE") == std::string::npos) continue;
      const std::string text = read_line(p.path() / "rate");
      const auto rate = parse_ib_rate(text);
      if (!rate) continue;
      out.push_back({d.path().filename().string(), std::atoi(p.path().filename().c_str()), *rate, text});
    }
  }
  return out;
}

}  // namespace

bool Ipv4Net::contains(std::uint32_t other) const {
  const std::uint32_t mask = prefix <= 0 ? 0 : prefix >= 32 ? 0xffffffffu : ~((1u << (32 - prefix)) - 1);
  return (address & mask) == (other & mask);
}

std::optional<double> parse_bits_per_s(std::string_view text) {
  std::string s(text);
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || !(v > 0)) return std::nullopt;
  std::string unit(end);
  double scale = 1;
  if (!unit.empty() && (unit[0] == 'k' || unit[0] == 'm' || unit[0] == 'g' || unit[0] == 't')) {
    scale = unit[0] == 'k' ? 1e3 : unit[0] == 'm' ? 1e6 : unit[0] == 'g' ? 1e9 : 1e12;
    unit.erase(0, 1);
  }
  if (!unit.empty() && unit != "bit" && unit != "bit/s" && unit != "bps") return std::nullopt;
  return v * scale;
}

std::optional<double> parse_ib_rate(std::string_view text) {
  const std::string s(text);
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || !(v > 0)) return std::nullopt;
  const std::string_view rest = std::string_view(end);
  if (rest.find("Gb/sec") == std::string_view::npos) return std::nullopt;
  return v * 1e9;
}

std::string bits_text(double bits_per_s) {
  if (bits_per_s >= 1e9) return fmt::format("{:g} Gbit/s", bits_per_s / 1e9);
  if (bits_per_s >= 1e6) return fmt::format("{:g} Mbit/s", bits_per_s / 1e6);
  return fmt::format("{:g} bit/s", bits_per_s);
}

HostNet local_host_net(const std::string& host) {
  HostNet net;
  net.host = host;
  std::error_code ec;
  net.netns = fs::read_symlink("/proc/self/ns/net", ec).string();
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) == 0) {
    const std::unique_ptr<ifaddrs, decltype(&freeifaddrs)> owner(list, freeifaddrs);
    std::map<std::string, NetInterface> by_name;
    for (const ifaddrs* a = list; a; a = a->ifa_next) {
      if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET) continue;
      if ((a->ifa_flags & IFF_LOOPBACK) || !(a->ifa_flags & IFF_UP)) continue;
      const auto* in = reinterpret_cast<const sockaddr_in*>(a->ifa_addr);
      const auto* mask = reinterpret_cast<const sockaddr_in*>(a->ifa_netmask);
      NetInterface& nif = by_name[a->ifa_name];
      nif.name = a->ifa_name;
      nif.addresses.push_back(
          {ntohl(in->sin_addr.s_addr), mask ? prefix_of(ntohl(mask->sin_addr.s_addr)) : 32});
    }
    for (auto& [name, nif] : by_name) {
      fill_rate(nif);
      net.interfaces.push_back(std::move(nif));
    }
  }
  // A shaped link reports the device's speed, not the shaping: whoever
  // shaped it says the rate (every interface of this rank that leaves it).
  if (const char* env = std::getenv("SHARDROOF_LINE_RATE"))
    if (const auto r = parse_bits_per_s(env))
      for (auto& nif : net.interfaces) {
        nif.bits_per_s = *r;
        nif.rate_source = fmt::format("SHARDROOF_LINE_RATE={}", env);
      }
  net.ib_ports = active_ib_ports();
  return net;
}

std::string to_text(const HostNet& net) {
  nlohmann::json j;
  j["host"] = net.host;
  j["netns"] = net.netns;
  j["interfaces"] = nlohmann::json::array();
  for (const auto& nif : net.interfaces) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& n : nif.addresses) a.push_back({n.address, n.prefix});
    j["interfaces"].push_back({{"name", nif.name}, {"addresses", a}, {"bits_per_s", nif.bits_per_s},
                               {"rate_source", nif.rate_source}});
  }
  j["ib_ports"] = nlohmann::json::array();
  for (const auto& p : net.ib_ports)
    j["ib_ports"].push_back({{"device", p.device}, {"port", p.port}, {"bits_per_s", p.bits_per_s}, {"rate", p.rate_text}});
  return j.dump();
}

HostNet host_net_from_text(std::string_view text) {
  const nlohmann::json j = nlohmann::json::parse(text);
  HostNet net;
  net.host = j.value("host", "");
  net.netns = j.value("netns", "");
  for (const auto& i : j.value("interfaces", nlohmann::json::array())) {
    NetInterface nif;
    nif.name = i.value("name", "");
    for (const auto& a : i.value("addresses", nlohmann::json::array()))
      nif.addresses.push_back({a.at(0).get<std::uint32_t>(), a.at(1).get<int>()});
    nif.bits_per_s = i.value("bits_per_s", 0.0);
    nif.rate_source = i.value("rate_source", "");
    net.interfaces.push_back(std::move(nif));
  }
  for (const auto& p : j.value("ib_ports", nlohmann::json::array()))
    net.ib_ports.push_back({p.value("device", ""), p.value("port", 1), p.value("bits_per_s", 0.0), p.value("rate", "")});
  return net;
}

bool same_machine(const HostNet& a, const HostNet& b) { return a.host == b.host && a.netns == b.netns; }

std::optional<LineRate> line_rate_toward(const HostNet& from, const HostNet& to) {
  if (same_machine(from, to)) return std::nullopt;
  std::optional<LineRate> best;
  for (const auto& nif : from.interfaces) {
    if (!(nif.bits_per_s > 0)) continue;
    bool reaches = false;
    for (const auto& mine : nif.addresses)
      for (const auto& peer : to.interfaces)
        for (const auto& theirs : peer.addresses)
          if (mine.address != theirs.address && mine.contains(theirs.address)) reaches = true;
    if (reaches && (!best || nif.bits_per_s > best->bits_per_s)) best = LineRate{nif.bits_per_s, nif.name, nif.rate_source};
  }
  if (best) return best;
  // No IP path seen: MPI over verbs, if both ends have an active port.
  if (to.ib_ports.empty()) return std::nullopt;
  for (const auto& p : from.ib_ports)
    if (!best || p.bits_per_s > best->bits_per_s)
      best = LineRate{p.bits_per_s, fmt::format("{} port {}", p.device, p.port), "InfiniBand port rate " + p.rate_text};
  return best;
}

std::optional<LineRate> pair_line_rate(const std::vector<HostNet>& nets, int a, int b) {
  const auto n = static_cast<int>(nets.size());
  if (a < 0 || b < 0 || a >= n || b >= n) return std::nullopt;
  const auto ab = line_rate_toward(nets[static_cast<std::size_t>(a)], nets[static_cast<std::size_t>(b)]);
  const auto ba = line_rate_toward(nets[static_cast<std::size_t>(b)], nets[static_cast<std::size_t>(a)]);
  if (!ab) return ba;
  if (!ba) return ab;
  return ab->bits_per_s <= ba->bits_per_s ? ab : ba;
}

RingLineRate ring_line_rate(const std::vector<HostNet>& nets) {
  RingLineRate out;
  const auto n = static_cast<int>(nets.size());
  if (n < 2) return out;
  for (int r = 0; r < n; ++r) {
    const int right = (r + 1) % n;
    if (n == 2 && r == 1) break;  // two ranks: one pair
    ++out.pairs;
    if (same_machine(nets[static_cast<std::size_t>(r)], nets[static_cast<std::size_t>(right)])) {
      ++out.pairs_in_memory;
      continue;
    }
    const auto rate = pair_line_rate(nets, r, right);
    if (!rate) {
      ++out.pairs_unknown;
      continue;
    }
    if (!out.rate || rate->bits_per_s < out.rate->bits_per_s) out.rate = rate;
  }
  return out;
}

}  // namespace shardroof::hw
