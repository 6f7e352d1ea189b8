// `shardroof report`'s page: one self-contained HTML file from a
// bring-up's records (report/bringup.h), its plots inline SVG, no script
// and nothing fetched, so it opens on an air-gapped login node. Sections,
// each left out when no record feeds it:
//   answer       the answer block (report/answer.h)
//   sweep        T_math and T_comm against D, the roofs, D* and its interval, the book's
//   launches     launches side by side (combine's, or several sweeps')
//   ceilings     each measured ceiling beside the hardware's own limit
//   link         the link matrix as a heat map, the slow pairs named
//   coll         time and busbw per size and implementation, beside the cost model
//   environment  CPU, BLAS kernel, MPI, GPU and line rates
//   skipped      what the records lacked, named
// Each section is a <section id="NAME">, which the browser test looks for.
#pragma once

#include <string>
#include <vector>

#include "report/bringup.h"

namespace shardroof {

// The ids of the sections `b` fills, in the page's order.
std::vector<std::string> report_sections(const bringup::BringUp& b);

// The page. `files`: the records read, named at the top.
std::string html_report(const bringup::BringUp& b, const std::vector<std::string>& files);

}  // namespace shardroof
