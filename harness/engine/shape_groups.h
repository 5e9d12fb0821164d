// Recurring shapes (docs/design.md, "Certification"): which shapes a run asked of the backend more
// than once, and with what changed in between. A backend that keeps state keyed on a shape (a
// plan cache, a scratch buffer, a memoized result) is only ever tested by a shape that recurs.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>

#include "dmlcert/case.h"

namespace dmlcert::engine {

// A shape is the operator, its REDUCE function and every tensor's sizes: what a cache keyed on
// "the same operator on the same sizes" would take for one entry.
struct ShapeRecurrence {
  uint64_t groups = 0;     // distinct shapes among the valid cases run
  uint64_t recurring = 0;  // shapes run more than once
  // Shapes that recurred with other strides, padding or slack; another data type; another
  // feature level; other data; or exactly the same case again.
  uint64_t other_layout = 0, other_type = 0, other_level = 0, other_data = 0, repeated = 0;
  void merge(const ShapeRecurrence& other);
  // "12 of 345 (other layout 10, other type 9, other level 5, other data 8, the same case again 7)"
  std::string summary() const;
};
// Every count with its key in the JSON reports, in order.
inline constexpr std::pair<const char*, uint64_t ShapeRecurrence::*> kShapeRecurrenceFields[] = {
    {"groups", &ShapeRecurrence::groups},
    {"recurring", &ShapeRecurrence::recurring},
    {"other_layout", &ShapeRecurrence::other_layout},
    {"other_type", &ShapeRecurrence::other_type},
    {"other_level", &ShapeRecurrence::other_level},
    {"other_data", &ShapeRecurrence::other_data},
    {"repeated", &ShapeRecurrence::repeated}};

class ShapeGroups {
 public:
  // A valid case the backend ran.
  void add(const Case& c);
  ShapeRecurrence counts() const;

 private:
  struct Group {
    uint64_t cases = 0;
    uint64_t layout = 0, types = 0, data = 0;  // the first case's, hashed
    FeatureLevel level = kDefaultFeatureLevel;
    bool other_layout = false, other_type = false, other_level = false, other_data = false, repeated = false;
  };
  std::unordered_map<uint64_t, Group> groups_;  // by the shape's hash
};

}  // namespace dmlcert::engine
