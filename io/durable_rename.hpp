#pragma once
// Moving a finished file into place so that a crash or a power loss leaves either the old name or
// the complete new file: the file's data is synced, renamed, and the folder's entry synced too.
#include <filesystem>

namespace meridian::io {

// Throws FileError naming the files when the rename or a sync fails.
void durable_rename(const std::filesystem::path& from, const std::filesystem::path& to);

}  // namespace meridian::io
