#pragma once
/// Umbrella header.
#include "gcsnap/model.hpp"
#include "gcsnap/reader.hpp"
#include "gcsnap/status.hpp"
#include "gcsnap/writer.hpp"
