#include "trace/gather.h"

#include <climits>
#include <nlohmann/json.hpp>

#include "collectives/mpi_transport.h"
#include "util/error.h"

namespace shardroof::trace {

namespace {

nlohmann::json offset_json(const ClockOffset& c) {
  return {c.offset_s, c.round_trip_s, c.local_time_s, c.rounds};
}

ClockOffset offset_from(const nlohmann::json& j) {
  return {j.at(0).get<double>(), j.at(1).get<double>(), j.at(2).get<double>(), j.at(3).get<int>()};
}

}  // namespace

// Names repeat across thousands of spans: they travel once, in a table,
// and spans refer to them by index.
std::vector<std::uint8_t> serialize(const RankTrace& t) {
  nlohmann::json names = nlohmann::json::array();
  std::vector<std::string> table;
  const auto intern = [&](const std::string& s) {
    for (std::size_t i = 0; i < table.size(); ++i)
      if (table[i] == s) return i;
    table.push_back(s);
    return table.size() - 1;
  };
  nlohmann::json spans = nlohmann::json::array();
  for (const Span& s : t.spans) {
    nlohmann::json args = nlohmann::json::array();
    for (const auto& [key, value] : s.args) args.push_back({intern(key), value});
    spans.push_back({intern(s.name), intern(s.category), s.track, s.region, s.begin_s, s.end_s, std::move(args)});
  }
  nlohmann::json regions = nlohmann::json::array();
  for (const Region& r : t.regions)
    regions.push_back({r.measurement, r.collective, r.algorithm, r.bytes, r.D, r.shard, r.in_place, r.iteration,
                       r.iterations, r.chunks});
  const nlohmann::json doc = {{"rank", t.rank},
                              {"host", t.host},
                              {"clock_start", offset_json(t.clock_start)},
                              {"clock_end", offset_json(t.clock_end)},
                              {"dropped", t.dropped},
                              {"capacity", t.capacity},
                              {"names", table},
                              {"regions", std::move(regions)},
                              {"spans", std::move(spans)}};
  return nlohmann::json::to_cbor(doc);
}

RankTrace deserialize(const std::vector<std::uint8_t>& bytes) {
  const nlohmann::json doc = nlohmann::json::from_cbor(bytes);
  RankTrace t;
  t.rank = doc.at("rank").get<int>();
  t.host = doc.at("host").get<std::string>();
  t.clock_start = offset_from(doc.at("clock_start"));
  t.clock_end = offset_from(doc.at("clock_end"));
  t.dropped = doc.at("dropped").get<std::uint64_t>();
  t.capacity = doc.at("capacity").get<std::uint64_t>();
  const auto names = doc.at("names").get<std::vector<std::string>>();
  for (const auto& r : doc.at("regions")) {
    t.regions.push_back({r.at(0).get<std::string>(), r.at(1).get<std::string>(), r.at(2).get<std::string>(),
                         r.at(3).get<std::uint64_t>(), r.at(4).get<std::uint64_t>(), r.at(5).get<std::uint64_t>(),
                         r.at(6).get<int>(), r.at(7).get<int>(), r.at(8).get<int>(), r.at(9).get<int>()});
  }
  for (const auto& s : doc.at("spans")) {
    Span span;
    span.name = names.at(s.at(0).get<std::size_t>());
    span.category = names.at(s.at(1).get<std::size_t>());
    span.track = s.at(2).get<int>();
    span.region = s.at(3).get<int>();
    span.begin_s = s.at(4).get<double>();
    span.end_s = s.at(5).get<double>();
    for (const auto& a : s.at(6)) span.args.emplace_back(names.at(a.at(0).get<std::size_t>()), a.at(1).get<std::int64_t>());
    t.spans.push_back(std::move(span));
  }
  return t;
}

std::vector<RankTrace> gather_traces(MPI_Comm comm, const RankTrace& mine) {
  int rank = 0, size = 1;
  SHARDROOF_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  SHARDROOF_MPI_CHECK(MPI_Comm_size(comm, &size));
  const std::vector<std::uint8_t> bytes = serialize(mine);
  // The span buffers are bounded, so a rank's share is far below MPI's int
  // counts; a rank that still exceeds them is a bug worth stopping on.
  if (bytes.size() > static_cast<std::size_t>(INT_MAX)) throw RuntimeError("--trace: a rank's trace exceeds 2 GiB");
  const int my_count = static_cast<int>(bytes.size());
  std::vector<int> counts(static_cast<std::size_t>(size)), displs(static_cast<std::size_t>(size));
  SHARDROOF_MPI_CHECK(MPI_Gather(&my_count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm));
  std::vector<std::uint8_t> all;
  if (rank == 0) {
    long long total = 0;
    for (int r = 0; r < size; ++r) {
      displs[static_cast<std::size_t>(r)] = static_cast<int>(total);
      total += counts[static_cast<std::size_t>(r)];
    }
    if (total > INT_MAX) throw RuntimeError("--trace: the ranks' traces together exceed 2 GiB");
    all.resize(static_cast<std::size_t>(total));
  }
  SHARDROOF_MPI_CHECK(MPI_Gatherv(bytes.data(), my_count, MPI_BYTE, all.data(), counts.data(), displs.data(),
                                  MPI_BYTE, 0, comm));
  std::vector<RankTrace> out;
  if (rank != 0) return out;
  for (int r = 0; r < size; ++r) {
    const auto first = all.begin() + displs[static_cast<std::size_t>(r)];
    out.push_back(deserialize(std::vector<std::uint8_t>(first, first + counts[static_cast<std::size_t>(r)])));
  }
  return out;
}

}  // namespace shardroof::trace
