// Hardware presets: named chips and their links, read from TOML
// (configs/hardware/*.toml, see README "Hardware presets" for the schema).
// Every preset in configs/hardware/ is also compiled into the program, so an
// installed binary finds them without the source tree.
//
// Lookup of `--hw X`: X is a file when it names an existing file, contains a
// '/' or ends in ".toml"; otherwise it is a preset name, looked up as
// X.toml in $SHARDROOF_HARDWARE_DIR (when set), then in the source tree's
// configs/hardware/ (when it still exists), then among the built-in copies.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "model/roofline.h"

namespace shardroof::model {

struct LinkPreset {
  std::string name;          // the key under [links], e.g. "ici", "nvlink"
  std::string description;
  double bytes_per_s = 0;    // W: one way, per rank
  double latency_s = 0;      // a: per message (per ring step)
  // Other names the link answers to (TOML `aliases`), e.g. "ib-ndr" for an
  // "infiniband" link that is NDR.
  std::vector<std::string> aliases;
};

// A collective's bus bandwidth as measured and published for this hardware
// (TOML [[published]]), with where it was published: `coll` prints it beside
// its own measurement and model, `predict --coll` beside the model's.
struct PublishedCollective {
  std::string collective;  // "all_reduce", as coll's --collective
  std::string algorithm;   // what was measured, e.g. "NCCL ring", "NCCL NVLS"
  int ranks = 0;
  std::string link;        // the preset's link it ran over
  double busbw_bytes_per_s = 0;
  std::string source;
};

struct HardwarePreset {
  std::string name;
  std::string description;
  std::string origin;                    // file path, or "built-in"
  std::map<std::string, double> flops;   // datatype -> dense peak FLOP/s
  double memory_bytes_per_s = 0;         // M: HBM / DRAM bandwidth
  std::map<std::string, LinkPreset> links;
  std::string default_link;
  std::vector<PublishedCollective> published;

  // The named link ("" = the default link); UsageError naming the links
  // this preset has when there is no such link.
  const LinkPreset& link(std::string_view link_name) const;
  // The link between nodes when none is named: the slowest link other than
  // the default one (traffic that leaves a node leaves its fast fabric: a
  // GPU preset's InfiniBand, a TPU preset's DCN); the default link where it
  // is the only one.
  std::string default_inter_link() const;
  // Peak FLOP/s for a datatype; UsageError naming the preset and the
  // datatypes it has (callers add what their user can do about it).
  double flops_for(std::string_view datatype) const;
};

// The datatypes a preset may list under [flops], with their sizes s.
const std::vector<std::pair<std::string, int>>& preset_datatypes();
// Bytes per element of a datatype name (double 8, float 4, bfloat16 2,
// half 2, int8 1); 0 when unknown.
int datatype_size(std::string_view datatype);

// Parses one preset; `origin` names it in error messages. Throws UsageError
// for bad TOML, missing or mistyped keys and impossible values.
HardwarePreset parse_hardware_preset(std::string_view toml_text, const std::string& origin);

// Finds a preset by name or file (see the lookup order above).
HardwarePreset load_hardware_preset(const std::string& name_or_path);

// Names of the presets compiled into the program, sorted.
std::vector<std::string> builtin_preset_names();
// The TOML text of a built-in preset; empty when there is none.
std::string_view builtin_preset_text(std::string_view name);

// The roofline ceilings of a preset's chip with one of its links:
// C for the datatype, M, W and a of the link; g = 0 (presets carry none).
Ceilings preset_ceilings(const HardwarePreset& hw, std::string_view link_name, std::string_view datatype);

}  // namespace shardroof::model
