#include "io/file_stamp.hpp"

#include "build_info.hpp"

namespace meridian::io {

void write_stamp(H5File& file, const FileStamp& stamp) {
  file.set_attribute("meridian_format_version", format_version);
  file.set_attribute("code_version", std::string(build::version) + " (" + build::git_hash + ")");
  file.set_attribute("build", std::string(build::description));
  file.set_attribute("solver", stamp.solver);
  file.set_attribute("deck", stamp.deck);
  file.set_attribute("time", stamp.time);
  file.set_attribute("step", stamp.step);
}

FileStamp read_stamp(const H5File& file) {
  if (!file.has_attribute("meridian_format_version"))
    throw FileError(file.path() + ": not a Meridian file (no meridian_format_version attribute)");
  const long version = file.integer_attribute("meridian_format_version");
  if (version != format_version)
    throw FileError(file.path() + ": format version " + std::to_string(version) + ", this build reads version " +
                    std::to_string(format_version));
  return FileStamp{file.string_attribute("solver"), file.string_attribute("deck"), file.real_attribute("time"),
                   file.integer_attribute("step")};
}

}  // namespace meridian::io
