#include "collectives/types.h"

namespace shardroof::coll {

std::string_view to_string(DataType t) {
  switch (t) {
    case DataType::Float: return "float";
    case DataType::Double: return "double";
    case DataType::BFloat16: return "bfloat16";
    case DataType::Half: return "half";
    case DataType::Int32: return "int32";
  }
  return "?";
}

std::string_view to_string(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return "sum";
    case ReduceOp::Prod: return "prod";
    case ReduceOp::Max: return "max";
    case ReduceOp::Min: return "min";
    case ReduceOp::Avg: return "avg";
  }
  return "?";
}

std::optional<DataType> parse_datatype(std::string_view name) {
  if (name == "float" || name == "float32" || name == "f32") return DataType::Float;
  if (name == "double" || name == "float64" || name == "f64") return DataType::Double;
  if (name == "bfloat16" || name == "bf16") return DataType::BFloat16;
  if (name == "half" || name == "float16" || name == "f16") return DataType::Half;
  if (name == "int32" || name == "int" || name == "i32") return DataType::Int32;
  return std::nullopt;
}

std::optional<ReduceOp> parse_reduce_op(std::string_view name) {
  if (name == "sum") return ReduceOp::Sum;
  if (name == "prod") return ReduceOp::Prod;
  if (name == "max") return ReduceOp::Max;
  if (name == "min") return ReduceOp::Min;
  if (name == "avg") return ReduceOp::Avg;
  return std::nullopt;
}

}  // namespace shardroof::coll
