// The traffic patterns of `shardroof link --pattern`:
//
//   pingpong  one pair at a time on an otherwise idle fabric; src sends,
//             dst echoes; one-way time = round trip / 2.
//   bidir     one pair at a time, both directions at once (OSU osu_bibw):
//             the time of one exchange; W is per direction (the pair moves
//             2W together).
//   shift     mpiGraph's pattern: in step k = 1 .. N-1 every rank sends to
//             rank + k and receives from rank - k, all at once; N(N-1)
//             directed transfers, a full N x N matrix under load.
//   ring      every rank sends to rank + 1 and receives from rank - 1, all
//             at once: the traffic of one step of our ring collectives
//             (the ring probe of `sweep`, link/ring_probe.h).
//
// The last three load the links; their pairs are compared with the idle
// ping-pong of the same pairs, measured in the same run. No MPI here:
// link/ping_pong.h measures the pairwise patterns, measure_shifts
// (link/ring_probe.h) the other two.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "link/records.h"

namespace shardroof::link {

std::string_view to_string(Pattern pattern);  // "pingpong", "bidir", "shift", "ring"
std::optional<Pattern> parse_pattern(std::string_view name);
// One line: what the pattern sends, as the table and the JSON say it.
std::string_view describe(Pattern pattern);

// Whether the pattern loads the links beyond one message at a time (every
// pattern but pingpong): its pairs get an idle reference.
bool is_loaded(Pattern pattern);
// Whether all ranks send at once (shift, ring): the pattern sets its own
// pairs, and a pair is directed (src sends to dst).
bool all_ranks_at_once(Pattern pattern);

// The shifts a pattern runs on `ranks` ranks: 1 .. N-1 for shift, 1 for ring.
std::vector<int> pattern_shifts(Pattern pattern, int ranks);

// The unordered pairs (src < dst) whose idle ping-pong is the reference for
// the pattern's pairs: `pairs` for bidir; for shift and ring the pairs their
// transfers join, each once.
std::vector<RankPair> idle_reference_pairs(Pattern pattern, int ranks, const std::vector<RankPair>& pairs);

}  // namespace shardroof::link
