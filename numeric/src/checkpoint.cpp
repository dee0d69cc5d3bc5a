#include "infoflow/numeric/checkpoint.hpp"

#include <cstring>
#include <system_error>
#include <iterator>
#include <type_traits>

#include <fmt/format.h>

#include "infoflow/core/atomic_file.hpp"
#include "infoflow/core/error.hpp"
#include "infoflow/core/limits.hpp"
#include "infoflow/core/read_file.hpp"

namespace infoflow::numeric {

namespace {

constexpr char kMagic[] = "INFOFLOW-CKPT-1\n";

std::uint64_t fnv1a(const char* data, std::size_t size) {
  std::uint64_t h = 1469598103934665603ULL;
  for (std::size_t i = 0; i < size; ++i) {
    h ^= static_cast<unsigned char>(data[i]);
    h *= 1099511628211ULL;
  }
  return h;
}

class Writer {
 public:
  template <class T>
  void put(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    out_.append(reinterpret_cast<const char*>(&value), sizeof(T));
  }
  void bytes(const void* data, std::size_t size) {
    put<std::uint64_t>(size);
    out_.append(static_cast<const char*>(data), size);
  }
  std::string& text() { return out_; }

 private:
  std::string out_;
};

class Reader {
 public:
  Reader(const std::string& in, const std::filesystem::path& file) : in_(in), file_(file) {}
  template <class T>
  T get() {
    T value;
    need(sizeof(T));
    std::memcpy(&value, in_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return value;
  }
  std::vector<unsigned char> bytes() {
    const auto size = get<std::uint64_t>();
    need(size);
    std::vector<unsigned char> out(in_.begin() + static_cast<std::ptrdiff_t>(at_),
                                   in_.begin() + static_cast<std::ptrdiff_t>(at_ + size));
    at_ += size;
    return out;
  }
  [[nodiscard]] std::size_t at() const { return at_; }

 private:
  void need(std::size_t n) const {
    if (at_ + n > in_.size()) throw InputError("checkpoint " + file_.string() + " is truncated");
  }
  const std::string& in_;
  const std::filesystem::path& file_;
  std::size_t at_ = 0;
};

}  // namespace

std::string model_fingerprint(const ModelConfig& m) {
  std::string heads;
  for (const Index h : m.heads) heads += std::to_string(h) + ",";
  return fmt::format(
      "T={} d={} E={} heads={} n={} W={} R={} enc={} enc_w={} act={} pe={} preln={} scale={:a}",
      m.tokens, m.token_dim, m.embedding, heads, m.head_dim, m.ffn_width, m.readout_width,
      to_string(m.encoder), m.encoder_hidden(), to_string(m.activation), to_string(m.positional),
      m.pre_layer_norm, m.attention_scale);
}

namespace {
constexpr std::string_view kStarting = "construction|";
}  // namespace

Checkpoint starting_checkpoint(const ModelConfig& m, const std::vector<double>& parameters) {
  Checkpoint c;
  c.fingerprint = std::string(kStarting) + model_fingerprint(m);
  c.scalar_bytes = 8;
  c.parameters.resize(parameters.size() * sizeof(double));
  if (!parameters.empty()) std::memcpy(c.parameters.data(), parameters.data(), c.parameters.size());
  c.first_moment.assign(c.parameters.size(), 0);
  c.second_moment.assign(c.parameters.size(), 0);
  return c;
}

bool is_starting_checkpoint(const Checkpoint& c) { return c.fingerprint.starts_with(kStarting); }

void save_checkpoint(const std::filesystem::path& path, const Checkpoint& c) {
  Writer w;
  w.text() = kMagic;
  w.bytes(c.fingerprint.data(), c.fingerprint.size());
  w.put<std::int64_t>(c.steps_done);
  w.put<std::uint8_t>(c.finished ? 1 : 0);
  w.put<std::int32_t>(static_cast<std::int32_t>(c.status));
  w.put<std::int64_t>(c.scalar_bytes);
  w.put<std::int64_t>(c.optimizer_steps);
  w.bytes(c.parameters.data(), c.parameters.size());
  w.bytes(c.first_moment.data(), c.first_moment.size());
  w.bytes(c.second_moment.data(), c.second_moment.size());
  w.put<std::uint64_t>(c.curve.size());
  for (const CurvePoint& p : c.curve) {
    w.put<std::int64_t>(p.step);
    w.put(p.learning_rate);
    w.put(p.train_nmse);
    w.put(p.validation_nmse);
  }
  w.put(c.best_validation_nmse);
  w.put<std::int64_t>(c.best_step);
  w.put(c.final_validation_nmse);
  w.put(c.seconds_training);
  w.put(c.seconds_total);
  w.put(fnv1a(w.text().data(), w.text().size()));
  if (path.has_parent_path()) {  // a folder that cannot be made is the user's: exit 2
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    if (ec) {
      throw InputError(SourceLocation{path.parent_path().string(), 0, 0},
                       "cannot create the checkpoint folder: " + ec.message());
    }
  }
  write_file_atomically(path, w.text());
}

Checkpoint load_checkpoint(const std::filesystem::path& path) {
  const std::string in = read_input_file(path, limits::kCheckpointBytes, "checkpoint");
  const std::size_t magic = sizeof(kMagic) - 1;
  if (in.compare(0, magic, kMagic) != 0)
    throw InputError(path.string() + " is not an infoflow checkpoint");
  if (in.size() < magic + sizeof(std::uint64_t) ||
      fnv1a(in.data(), in.size() - sizeof(std::uint64_t)) !=
          Reader(in.substr(in.size() - sizeof(std::uint64_t)), path).get<std::uint64_t>()) {
    throw InputError("checkpoint " + path.string() +
                     " is corrupt (checksum): delete it to start the run over");
  }
  const std::string body = in.substr(magic);
  Reader r(body, path);
  Checkpoint c;
  const std::vector<unsigned char> fingerprint = r.bytes();
  c.fingerprint.assign(fingerprint.begin(), fingerprint.end());
  c.steps_done = r.get<std::int64_t>();
  c.finished = r.get<std::uint8_t>() != 0;
  c.status = static_cast<RunStatus>(r.get<std::int32_t>());
  c.scalar_bytes = r.get<std::int64_t>();
  c.optimizer_steps = r.get<std::int64_t>();
  c.parameters = r.bytes();
  c.first_moment = r.bytes();
  c.second_moment = r.bytes();
  const auto points = r.get<std::uint64_t>();
  for (std::uint64_t i = 0; i < points; ++i) {
    CurvePoint p;
    p.step = r.get<std::int64_t>();
    p.learning_rate = r.get<double>();
    p.train_nmse = r.get<double>();
    p.validation_nmse = r.get<double>();
    c.curve.push_back(p);
  }
  c.best_validation_nmse = r.get<double>();
  c.best_step = r.get<std::int64_t>();
  c.final_validation_nmse = r.get<double>();
  c.seconds_training = r.get<double>();
  c.seconds_total = r.get<double>();
  return c;
}

}  // namespace infoflow::numeric
