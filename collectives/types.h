// Element types and reduction operators understood by every collective.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace shardroof::coll {

enum class DataType { Float, Double, BFloat16, Half, Int32 };
enum class ReduceOp { Sum, Prod, Max, Min, Avg };

constexpr std::size_t size_of(DataType t) {
  switch (t) {
    case DataType::Float: return 4;
    case DataType::Double: return 8;
    case DataType::BFloat16: return 2;
    case DataType::Half: return 2;
    case DataType::Int32: return 4;
  }
  return 0;
}

std::string_view to_string(DataType t);
std::string_view to_string(ReduceOp op);
std::optional<DataType> parse_datatype(std::string_view name);
std::optional<ReduceOp> parse_reduce_op(std::string_view name);

// Every name parse_datatype / parse_reduce_op accepts, for help texts.
inline constexpr std::string_view kDataTypeNames[] = {"float", "double", "bfloat16", "half", "int32"};
inline constexpr std::string_view kReduceOpNames[] = {"sum", "prod", "max", "min", "avg"};

}  // namespace shardroof::coll
