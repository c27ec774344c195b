#include "io/checkpoint.hpp"

#include "io/broadcast.hpp"
#include "io/durable_rename.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>

namespace meridian::io {
namespace fs = std::filesystem;

namespace {

const std::string prefix = "checkpoint_";

std::uint64_t mix(std::uint64_t x) {  // splitmix64 finaliser
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Sum over values of a hash of (dataset, global position, bits): the same for any decomposition.
std::uint64_t local_checksum(const std::vector<HostDataset>& state) {
  std::uint64_t sum = 0;
  for (const auto& d : state) {
    const auto& box = d.box;
    const std::uint64_t name_hash = mix(std::hash<std::string>{}(box.name));
    const std::size_t rank = box.count.size();
    const std::uint64_t per_value = box.complex ? 2 : 1;
    std::vector<unsigned long long> index(rank, 0);
    for (std::size_t n = 0; n < d.values.size(); ++n) {
      const std::size_t cell = n / per_value;
      std::size_t rest = cell;
      std::uint64_t global = 0;
      for (std::size_t a = rank; a-- > 0;) {
        index[a] = rest % box.count[a];
        rest /= box.count[a];
      }
      for (std::size_t a = 0; a < rank; ++a) global = global * box.global[a] + box.offset[a] + index[a];
      std::uint64_t bits;
      std::memcpy(&bits, &d.values[n], sizeof bits);
      sum += mix(name_hash ^ mix(global * per_value + n % per_value) ^ mix(bits));
    }
  }
  return sum;
}

std::uint64_t checksum(const std::vector<HostDataset>& state, MPI_Comm comm) {
  std::uint64_t local = local_checksum(state), global = 0;
  MPI_Allreduce(&local, &global, 1, MPI_UINT64_T, MPI_SUM, comm);
  return global;
}

std::string hex(std::uint64_t x) {
  std::ostringstream out;
  out << std::hex << std::setw(16) << std::setfill('0') << x;
  return out.str();
}

// Complete checkpoints (extension .h5), or the leftovers of interrupted writes (.tmp).
std::vector<fs::path> checkpoints_in(const std::string& directory, const std::string& extension = ".h5") {
  std::vector<fs::path> found;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(directory, error)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) == 0 && entry.path().extension() == extension) found.push_back(entry.path());
  }
  std::sort(found.begin(), found.end());  // zero-padded step numbers sort in step order
  return found;
}

int rank_of(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return rank;
}

}  // namespace

CheckpointStore::CheckpointStore(std::string directory, int keep, MPI_Comm comm)
    : directory_(std::move(directory)), keep_(keep), comm_(comm) {}

std::string CheckpointStore::write(const FileStamp& stamp, const std::vector<HostDataset>& state,
                                   const std::function<void(H5File&)>& extra) const {
  std::ostringstream name;
  name << prefix << std::setw(9) << std::setfill('0') << stamp.step << ".h5";
  const fs::path final_path = fs::path(directory_) / name.str();
  const fs::path temporary = fs::path(directory_) / (name.str() + ".tmp");
  if (rank_of(comm_) == 0) fs::create_directories(directory_);
  MPI_Barrier(comm_);
  const std::uint64_t sum = checksum(state, comm_);
  {
    H5File file = H5File::create(temporary.string(), comm_);
    write_stamp(file, stamp);
    for (const auto& d : state) file.write(d);
    extra(file);
    file.set_attribute("state_checksum", hex(sum));
    file.flush();
    file.close();
  }
  MPI_Barrier(comm_);
  if (rank_of(comm_) == 0) {
    // Older checkpoints go only once the new one is durable.
    durable_rename(temporary, final_path);
    auto all = checkpoints_in(directory_);
    for (std::size_t i = 0; i + keep_ < all.size(); ++i) fs::remove(all[i]);
    for (const auto& leftover : checkpoints_in(directory_, ".tmp")) fs::remove(leftover);  // a crash mid-write
  }
  MPI_Barrier(comm_);
  return final_path.string();
}

// Rank 0 looks and tells the others, so every rank opens the same file even where a shared file
// system shows the ranks different listings for a while (NFS attribute caching).
std::string CheckpointStore::resolve(const std::string& which) const {
  std::string answer, error;
  if (rank_of(comm_) == 0) {
    if (which != "latest") {
      if (fs::exists(which)) answer = which;
      else error = which + ": no such checkpoint file";
    } else {
      const auto all = checkpoints_in(directory_);
      if (all.empty())
        error = directory_ + ": no checkpoint to restart from (--restart latest looks for " + prefix +
                "*.h5 in this folder)";
      else
        answer = all.back().string();
    }
  }
  std::string message = error.empty() ? "+" + answer : "-" + error;
  broadcast_from_rank0(message, comm_);
  if (message[0] == '-') throw FileError(message.substr(1));
  return message.substr(1);
}

void read_checkpoint_state(H5File& file, std::vector<HostDataset>& state, MPI_Comm comm) {
  for (auto& d : state) {
    if (!file.has_dataset(d.box.name)) throw FileError(file.path() + ": checkpoint has no dataset " + d.box.name);
    file.read(d);
  }
  const std::string expected = file.string_attribute("state_checksum");
  const std::string found = hex(checksum(state, comm));
  if (found != expected)
    throw FileError(file.path() + ": checksum mismatch (stored " + expected + ", read " + found +
                    "): the checkpoint is corrupt");
}

}  // namespace meridian::io
