// dmlcert rules: the rule catalog of SPEC.md, one rule a line, or as JSON.
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli_common.h"
#include "commands.h"
#include "dmlcert/rules.h"

namespace dmlcert::cli {
namespace {

int list_rules(bool json) {
  const auto rules = rule_catalog();
  if (json) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const Rule& r : rules) out.push_back({{"id", r.id}, {"tag", name(r.tag)}, {"text", r.text}});
    std::cout << out.dump(2) << "\n";
    return kExitPassed;
  }
  size_t id_width = 0, tag_width = 0;
  for (const Rule& r : rules) {
    id_width = std::max(id_width, r.id.size());
    tag_width = std::max(tag_width, name(r.tag).size());
  }
  for (const Rule& r : rules)
    std::cout << std::left << std::setw(static_cast<int>(id_width)) << r.id << "  "
              << std::setw(static_cast<int>(tag_width)) << name(r.tag) << "  " << r.text << "\n";
  return kExitPassed;
}

}  // namespace

void add_rules_command(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand(
      "rules",
      "List every rule of the catalog: its ID (as validators report it and case files name it), its "
      "tag (doc: stated in the documentation; inferred: the only reading that makes the formulas "
      "well defined; unspecified and doc/U: descriptors or data that make a case class U) and its "
      "text, in aligned columns.");
  cmd->add_flag("--json", *json, "Print a JSON array of {id, tag, text} instead");
  cmd->footer("Exit status: 0.");
  cmd->callback([json] { set_exit_status(list_rules(*json)); });
}

}  // namespace dmlcert::cli
