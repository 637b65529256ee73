// torchir_ab_layer: two builds of the native kernels (before and after a change, each a
// libtorchir_ab_layer_module.so) loaded into one process and timed call by call on one layer,
// A-B-B-A over and over, so that the shared host's drift (its other tenants' load on the memory
// system swings a layer by 5-20 % from one process to the next) falls on both alike. Also checks
// that both compute the same outputs. docs/benchmarks.md, "One layer, two builds, one process".
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "benchmarks/ab_layer_module.h"
#include "benchmarks/cache_line_allocator.h"
#include "benchmarks/convolution_layers.h"

namespace {

constexpr char kUsage[] =
    "usage: torchir_ab_layer A.so B.so (--layer=NAME | --shape=SIZE,CIN,COUT,KERNEL,STRIDE,PAD\n"
    "                        [,GROUPS]) [--nchw] [--relu] [--winograd=4|2] [--pairs=N]\n"
    "                        [--warmup=N] [--tolerance=T] [--evict=MIB] [--isa=NAME]\n"
    "\n"
    "Times one convolution (batch 1, square input SIZE x SIZE, square kernel, symmetric\n"
    "padding; GROUPS == CIN == COUT is depthwise; or a layer of the per-layer suite by NAME,\n"
    "e.g. resnet18_conv1_7x7_224) on two builds of torchir's native kernels in one process,\n"
    "at 1 thread: the calls alternate A B B A ... N pairs (default 200) after WARMUP calls of\n"
    "each (default 10), on the same input and output memory. Prints each build's median and\n"
    "spread, and B / A as the ratio of medians, of minima, and the median [quartiles] of the\n"
    "ratios of adjacent pairs. Fails when the outputs differ by more than T (default 1e-4)\n"
    "times A's largest |output|.\n"
    "\n"
    "Make the modules with the build's target torchir_ab_layer_module, e.g.\n"
    "  git stash && cmake --build build --target torchir_ab_layer_module &&\n"
    "  cp build/lib/libtorchir_ab_layer_module.so /tmp/before.so && git stash pop &&\n"
    "  cmake --build build --target torchir_ab_layer_module torchir_ab_layer &&\n"
    "  build/bin/torchir_ab_layer /tmp/before.so build/lib/libtorchir_ab_layer_module.so \\\n"
    "    --layer=resnet18_conv1_7x7_224 --relu\n"
    "B may also be build/lib/libtorchir_ab_layer_onednn.so: the layer as TorchScript + oneDNN\n"
    "runs it in a frozen network (on its own data; outputs not compared).\n"
    "\n"
    "--nchw        the input NCHW (a network's image; stems of at most 4 channels)\n"
    "--relu        bias and relu after the convolution (else bias only)\n"
    "--winograd=T  the native side by Winograd F(T x T, 3x3) (3x3 stride-1 layers)\n"
    "--isa=NAME    the native kernels of at most that instruction set (avx512, avx2, sse4,\n"
    "              neon, portable): on an AVX-512 machine, what a CPU without it runs\n"
    "--evict=MIB   before every call (untimed) reads and writes a line of every 64 bytes of\n"
    "              MIB MiB of other memory, as a network's other layers would between two\n"
    "              calls: the layer's data then come from L3 or memory, not L2 (default 0)\n"
    "--list-layers prints the suite's layers: name size cin cout kernel stride pad groups\n";

struct Module {
  std::string path;
  void* handle = nullptr;
  decltype(&torchir_ab_layer_create) create = nullptr;
  decltype(&torchir_ab_layer_output_floats) output_floats = nullptr;
  decltype(&torchir_ab_layer_run) run = nullptr;
  decltype(&torchir_ab_layer_destroy) destroy = nullptr;
  bool own_data = false;  // its run computes on data of its own (no outputs compared)
  TorchirAbLayer* layer = nullptr;
};

[[noreturn]] void Fail(const std::string& message) {
  std::fprintf(stderr, "torchir_ab_layer: %s\n", message.c_str());
  std::exit(1);
}

template <class F>
void Find(Module& m, const char* name, F* f) {
  *f = reinterpret_cast<F>(dlsym(m.handle, name));
  if (*f == nullptr) Fail(m.path + " has no " + name + ": not a torchir_ab_layer_module build");
}

void Load(Module& m) {
  // RTLD_LOCAL: each module's copy of the kernels stays its own.
  m.handle = dlopen(m.path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (m.handle == nullptr) Fail(std::string("cannot load ") + dlerror());
  Find(m, "torchir_ab_layer_create", &m.create);
  Find(m, "torchir_ab_layer_output_floats", &m.output_floats);
  Find(m, "torchir_ab_layer_run", &m.run);
  Find(m, "torchir_ab_layer_destroy", &m.destroy);
  const auto own_data = reinterpret_cast<decltype(&torchir_ab_layer_own_data)>(
      dlsym(m.handle, "torchir_ab_layer_own_data"));
  m.own_data = own_data != nullptr && own_data() != 0;
}

bool ParseCount(const char* text, size_t* value) {
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (end == text || *end != '\0' || text[0] == '-') return false;
  *value = static_cast<size_t>(v);
  return true;
}

bool ParseShape(const std::string& text, TorchirAbLayerSpec* spec) {
  std::vector<size_t> values;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    size_t v;
    if (!ParseCount(text.substr(start, comma - start).c_str(), &v)) return false;
    values.push_back(v);
    start = comma + 1;
  }
  if (values.size() != 6 && values.size() != 7) return false;
  spec->size = values[0];
  spec->input_channels = values[1];
  spec->output_channels = values[2];
  spec->kernel = values[3];
  spec->stride = values[4];
  spec->padding = values[5];
  spec->groups = values.size() == 7 ? values[6] : 1;
  return spec->size > 0 && spec->input_channels > 0 && spec->output_channels > 0 &&
         spec->kernel > 0 && spec->stride > 0 && spec->groups > 0 &&
         spec->size + 2 * spec->padding >= spec->kernel;
}

double Quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5)];
}

// Deterministic floats in [-1, 1), page-aligned.
torchir::benchmarks::PageFloats Floats(size_t count, uint32_t seed) {
  torchir::benchmarks::PageFloats values(count);
  uint32_t state = seed * 2654435761u + 1;
  for (float& v : values) {
    state = state * 1664525u + 1013904223u;
    v = static_cast<float>(state >> 8) / static_cast<float>(1u << 23) - 1.0f;
  }
  return values;
}

// --evict: a line of every 64 bytes of `lines` read and written before each call (none when
// empty).
struct Evictor {
  std::vector<float> lines;
  void Run() {
    for (size_t i = 0; i < lines.size(); i += 64 / sizeof(float)) lines[i] += 1.0f;
  }
};

double TimeCall(Module& m, const float* input, float* output, Evictor& evictor) {
  evictor.Run();
  const auto start = std::chrono::steady_clock::now();
  if (m.run(m.layer, input, output) != 0) Fail(m.path + ": the convolution failed");
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> paths;
  TorchirAbLayerSpec spec{};
  bool have_shape = false;
  size_t pairs = 200, warmup = 10, evict_mib = 0;
  double tolerance = 1e-4;
  std::string target;  // --isa: empty for the CPU's widest
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&](const char* flag) -> const char* {
      const size_t n = std::strlen(flag);
      return arg.compare(0, n, flag) == 0 ? argv[i] + n : nullptr;
    };
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (arg == "--list-layers") {
      // name size cin cout kernel stride pad groups, one layer a line.
      for (const auto& l : torchir::benchmarks::kConvolutionLayers) {
        std::printf("%s %zu %zu %zu %zu %zu %zu %zu\n", l.name, l.size, l.cin, l.cout, l.kernel,
                    l.stride, l.pad, l.groups);
      }
      return 0;
    } else if (const char* v = value("--shape=")) {
      if (have_shape) Fail("give one --shape or --layer");
      if (!ParseShape(v, &spec)) Fail(std::string("bad --shape '") + v + "'\n" + kUsage);
      have_shape = true;
    } else if (const char* n = value("--layer=")) {
      if (have_shape) Fail("give one --shape or --layer");
      const auto* layer = std::find_if(std::begin(torchir::benchmarks::kConvolutionLayers),
                                       std::end(torchir::benchmarks::kConvolutionLayers),
                                       [&](const torchir::benchmarks::ConvolutionLayer& l) {
                                         return std::strcmp(l.name, n) == 0;
                                       });
      if (layer == std::end(torchir::benchmarks::kConvolutionLayers)) {
        Fail(std::string("no layer '") + n +
             "' (the names of benchmarks/convolution_layers.h, e.g. resnet18_conv1_7x7_224)");
      }
      spec.size = layer->size;
      spec.input_channels = layer->cin;
      spec.output_channels = layer->cout;
      spec.kernel = layer->kernel;
      spec.stride = layer->stride;
      spec.padding = layer->pad;
      spec.groups = layer->groups;
      have_shape = true;
    } else if (const char* t = value("--winograd=")) {
      if (std::strcmp(t, "4") != 0 && std::strcmp(t, "2") != 0) {
        Fail(std::string("bad --winograd '") + t + "': 4 or 2");
      }
      spec.winograd_tile = static_cast<size_t>(t[0] - '0');
    } else if (const char* isa = value("--isa=")) {
      target = isa;
    } else if (arg == "--nchw") {
      spec.channels_first = 1;
    } else if (arg == "--relu") {
      spec.relu = 1;
    } else if (const char* p = value("--pairs=")) {
      if (!ParseCount(p, &pairs) || pairs == 0) Fail(std::string("bad --pairs '") + p + "'");
    } else if (const char* w = value("--warmup=")) {
      if (!ParseCount(w, &warmup)) Fail(std::string("bad --warmup '") + w + "'");
    } else if (const char* e = value("--evict=")) {
      if (!ParseCount(e, &evict_mib) || evict_mib > 4096) {
        Fail(std::string("bad --evict '") + e + "': MiB, 0-4096");
      }
    } else if (const char* t = value("--tolerance=")) {
      char* end = nullptr;
      tolerance = std::strtod(t, &end);
      if (end == t || *end != '\0' || !(tolerance >= 0)) {
        Fail(std::string("bad --tolerance '") + t + "'");
      }
    } else if (!arg.empty() && arg[0] == '-') {
      Fail("unknown option " + arg + "\n" + kUsage);
    } else {
      paths.push_back(arg);
    }
  }
  if (paths.size() != 2) Fail(std::string("give two modules, A and B\n") + kUsage);
  if (!have_shape) Fail(std::string("give the layer's --shape or --layer\n") + kUsage);

  // One input, filter, bias and output for both: the builds differ in their code (and packed
  // filters) only, not in where their data lie.
  const size_t out_size = (spec.size + 2 * spec.padding - spec.kernel) / spec.stride + 1;
  const torchir::benchmarks::PageFloats input =
      Floats(spec.size * spec.size * spec.input_channels, 1);
  const torchir::benchmarks::PageFloats weights =
      Floats(spec.output_channels * (spec.input_channels / std::max<size_t>(spec.groups, 1)) *
                 spec.kernel * spec.kernel,
             2);
  const torchir::benchmarks::PageFloats bias = Floats(spec.output_channels, 3);
  const size_t out_floats = out_size * out_size * spec.output_channels;
  torchir::benchmarks::PageFloats output(out_floats);
  Module modules[2];
  for (int i = 0; i < 2; ++i) {
    modules[i].path = paths[i];
    Load(modules[i]);
    if (!target.empty() && !modules[i].own_data) {
      const auto limit = reinterpret_cast<decltype(&torchir_ab_layer_limit_target)>(
          dlsym(modules[i].handle, "torchir_ab_layer_limit_target"));
      if (limit == nullptr || limit(target.c_str()) != 0) {
        Fail(paths[i] + ": cannot run the kernels of --isa=" + target + " on this CPU");
      }
    }
    modules[i].layer = modules[i].create(&spec, weights.data(), bias.data());
    if (modules[i].layer == nullptr) {
      Fail(paths[i] + ": cannot set up the layer (its shape, or no kernels for this CPU)");
    }
    if (modules[i].output_floats(modules[i].layer) != out_floats) {
      Fail(paths[i] + ": its output is not " + std::to_string(out_floats) + " floats");
    }
  }
  Module& a = modules[0];
  Module& b = modules[1];
  Evictor evictor;
  evictor.lines.assign(evict_mib << 20 >> 2, 0.0f);

  // Both compute the same outputs (up to the rounding of a changed summation order).
  const bool compare = !a.own_data && !b.own_data;
  TimeCall(a, input.data(), output.data(), evictor);
  const std::vector<float> out_a(output.data(), output.data() + out_floats);
  TimeCall(b, input.data(), output.data(), evictor);
  double largest = 0, difference = 0;
  for (size_t i = 0; compare && i < out_floats; ++i) {
    largest = std::max(largest, static_cast<double>(std::fabs(out_a[i])));
    const double d = std::fabs(static_cast<double>(out_a[i]) - static_cast<double>(output[i]));
    difference = std::isnan(d) ? INFINITY : std::max(difference, d);
  }

  for (size_t i = 0; i < warmup; ++i) {
    TimeCall(a, input.data(), output.data(), evictor);
    TimeCall(b, input.data(), output.data(), evictor);
  }
  std::vector<double> ta, tb, ratio;
  for (size_t i = 0; i < pairs; ++i) {
    double t_a, t_b;
    if (i % 2 == 0) {
      t_a = TimeCall(a, input.data(), output.data(), evictor);
      t_b = TimeCall(b, input.data(), output.data(), evictor);
    } else {
      t_b = TimeCall(b, input.data(), output.data(), evictor);
      t_a = TimeCall(a, input.data(), output.data(), evictor);
    }
    ta.push_back(t_a);
    tb.push_back(t_b);
    ratio.push_back(t_b / t_a);
  }
  const double flops = 2.0 * static_cast<double>(out_size * out_size * spec.kernel * spec.kernel) *
                       static_cast<double>(spec.input_channels / spec.groups) *
                       static_cast<double>(spec.output_channels);
  for (int i = 0; i < 2; ++i) {
    const std::vector<double>& t = i == 0 ? ta : tb;
    std::printf("%c %s: median %.1f us [%.1f-%.1f], min %.1f us, %.1f GFLOP/s at the median\n",
                "AB"[i], paths[i].c_str(), Quantile(t, 0.5) * 1e6, Quantile(t, 0.25) * 1e6,
                Quantile(t, 0.75) * 1e6, Quantile(t, 0.0) * 1e6, flops / Quantile(t, 0.5) / 1e9);
  }
  std::printf("B / A: medians %.4f, minima %.4f, adjacent pairs %.4f [%.4f-%.4f] (%zu pairs)\n",
              Quantile(tb, 0.5) / Quantile(ta, 0.5), Quantile(tb, 0.0) / Quantile(ta, 0.0),
              Quantile(ratio, 0.5), Quantile(ratio, 0.25), Quantile(ratio, 0.75), pairs);
  if (evict_mib != 0) {
    std::printf("evicted: %zu MiB of other memory read and written before every call\n", evict_mib);
  }
  if (compare) {
    std::printf("outputs: max |B - A| %.3g, A's largest |output| %.3g\n", difference, largest);
  } else {
    std::printf("outputs: not compared (%s computes on its own data)\n",
                (a.own_data ? a : b).path.c_str());
  }
  for (Module& m : modules) m.destroy(m.layer);
  if (compare && !(difference <= tolerance * std::max(largest, 1.0))) {
    Fail("the two builds' outputs differ by more than --tolerance");
  }
  return 0;
}
