// The gates' verdict (gate/gate.h) on the report, in the JSON record and in
// the one line a failed run ends with on stderr.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "gate/gate.h"

namespace shardroof {

// "42.1 GB/s", "35.2 us", "1.2 TFLOP/s", "8191" (D): a metric's value in
// the units the command's table uses.
std::string format_metric_value(double value, const std::string& unit);

// The record's "gate": the rules, every check (what, measured, limit, how
// much worse, passed, the ranks), the notes, the problems and the verdict
// with the exit status it gave.
nlohmann::json gate_json(const gate::Verdict& verdict, int exit_status);

// "# gate: ..." lines: the rules, then every check that fell short (what, by
// how much, on which ranks), the notes, and the verdict.
void print_gate(std::ostream& out, const gate::Verdict& verdict);

// "gate failed: 3 of 12 checks fell short (... the first ...)".
std::string gate_failure_text(const gate::Verdict& verdict);

}  // namespace shardroof
