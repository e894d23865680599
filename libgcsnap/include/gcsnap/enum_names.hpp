#pragma once
/// The names of the library's enumerations, each a stable lower-case text that the CLI prints
/// and the golden outputs pin. Each is declared next to its enumeration; this header gathers
/// them for code that prints several.

#include "gcsnap/edge_names.hpp"       // unnamed_reason_text
#include "gcsnap/model.hpp"            // root_kind_name, generation_name
#include "gcsnap/object_identity.hpp"  // fate_name
#include "gcsnap/reader.hpp"           // file_end_name
#include "gcsnap/status.hpp"           // error_code_name
