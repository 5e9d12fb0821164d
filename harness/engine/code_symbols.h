// Names the functions and source lines of a plugin's edges (docs/coverage.md) from its modules'
// symbol tables and DWARF line tables, read with libdw. The child only sends addresses: the
// files themselves are read here, after the run.
#pragma once

#include "report.h"

namespace dmlcert::engine {

// Fills r.code_functions, r.code_files and r.edge_sources from r.code_coverage's modules. A module that
// cannot be read (gone, stripped, or libdw absent) gets functions named by address ("libx.so+0x1a40"), with
// no file.
void name_code(cert::Report& r);

}  // namespace dmlcert::engine
