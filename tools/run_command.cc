#include "tools/run_command.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <cstdio>
#include <iostream>
#include <optional>

#include "ops/evaluator.h"
#include "frontends/module_file.h"
#include "plan/memory_report.h"
#include "plan/planner.h"
#include "runtime/executable.h"
#include "runtime/replicated_executable.h"
#include "tools/cli_flags.h"
#include "tools/constant_values.h"
#include "tools/input_values.h"
#include "tools/layout_report.h"
#include "tools/mpi_run.h"
#include "tools/npy.h"
#include "tools/stacked_values.h"
#include "tools/text_file.h"

namespace vkxla {
namespace {

struct RunOptions {
  std::string module_path, function, output_dir, dump_dir;
  std::vector<std::string> inputs, outputs, infeeds, outfeeds, constants;
  int device = -1;
  std::vector<int> devices;  // a replicated run's devices, processes round-robin
  int64_t replicas = 0;      // 0: the module's replica_count
  int time_runs = 0;         // runs timed after the first (--time-runs)
  bool print = false, layout_report = false, dump_plan = false, memory_report = false, reference = false;
};

std::string WithoutAt(const std::string& s) { return !s.empty() && s[0] == '@' ? s.substr(1) : s; }

// --time-runs: `run` again o.time_runs times; the best wall time of one
// goes to stderr (`report`: this process is the one that speaks, rank 0
// under mpirun). Every process of a replicated run repeats alike, so their
// collectives keep meeting.
Status TimeRuns(const RunOptions& o, bool report, const std::function<Status()>& run) {
  if (o.time_runs <= 0) return OkStatus();
  double best = 1e30;
  for (int r = 0; r < o.time_runs; ++r) {
    const auto start = std::chrono::steady_clock::now();
    VKXLA_RETURN_IF_ERROR(run());
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  if (report) std::fprintf(stderr, "vkxla: best of %d timed runs: %.3f ms a run\n", o.time_runs, best * 1e3);
  return OkStatus();
}

Status WriteResults(const RunOptions& o, const Literal& result);

StatusOr<Literal> RunOnDevice(const RunOptions& o, const Module& module, const std::vector<Literal>& arguments) {
  VKXLA_ASSIGN_OR_RETURN(std::unique_ptr<Device> device, Device::Open(o.device));
  if (o.dump_plan) {
    // Printed before compiling, so a plan whose kernels fail still shows.
    VKXLA_ASSIGN_OR_RETURN(Program program, PlanModule(module, device->target()));
    std::cout << program.ToString();
  }
  if (o.memory_report) {
    // Before compiling or allocating: the report is what would be asked for.
    VKXLA_ASSIGN_OR_RETURN(Program program, PlanModule(module, device->target()));
    std::cout << ReportMemory(program).ToString() << device->info().name << " has:\n" << device->HeapsDescription();
  }
  VKXLA_ASSIGN_OR_RETURN(std::unique_ptr<Executable> exe, Executable::Compile(module, *device));
  if (!o.dump_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.dump_dir, ec);
    const auto& sources = exe->kernel_sources();
    for (size_t i = 0; i < sources.size(); ++i)
      VKXLA_RETURN_IF_ERROR(WriteTextFile(o.dump_dir + "/kernel" + std::to_string(i) + ".comp", sources[i]));
  }
  // Infeed values in order; outfeed values go to the --outfeed files in order.
  for (const std::string& path : o.infeeds) {
    VKXLA_ASSIGN_OR_RETURN(Literal l, ReadNpy(WithoutAt(path)));
    device->infeed().Push(std::move(l));
  }
  VKXLA_ASSIGN_OR_RETURN(Literal result, exe->Run(arguments));
  VKXLA_RETURN_IF_ERROR(TimeRuns(o, true, [&] { return exe->Run(arguments).status(); }));
  for (const std::string& path : o.outfeeds) {
    std::optional<Literal> v = device->outfeed().Pop();
    if (!v) return InvalidArgument("--outfeed " + path + ": the program wrote fewer outfeed values than --outfeed files");
    VKXLA_RETURN_IF_ERROR(WriteNpy(WithoutAt(path), *v));
  }
  return result;
}

// Every process's inputs (one per array leaf of the parameters): each
// --input holds them stacked on a leading axis of one slice per process.
StatusOr<std::vector<std::vector<Literal>>> ReadProcessInputs(const RunOptions& o, const Module& module, int64_t n) {
  const std::vector<InputSlot> slots = EntryInputSlots(*module.entry());
  std::vector<Shape> stacked;
  for (const InputSlot& slot : slots) {
    std::vector<int64_t> dims{n};
    dims.insert(dims.end(), slot.shape.dims().begin(), slot.shape.dims().end());
    stacked.push_back(Shape(slot.shape.element_type(), dims));
  }
  VKXLA_ASSIGN_OR_RETURN(std::vector<Literal> inputs, ReadInputs(o.inputs, stacked));
  if (inputs.size() != slots.size()) return EntryArguments(std::move(inputs), *module.entry(), o.module_path).status();
  std::vector<std::vector<Literal>> per_process(static_cast<size_t>(n));
  for (size_t i = 0; i < inputs.size(); ++i) {
    VKXLA_ASSIGN_OR_RETURN(std::vector<Literal> slices, UnstackLiteral(inputs[i], n, "input " + std::to_string(i)));
    for (int64_t p = 0; p < n; ++p) {
      if (!FitsShape(slices[p].shape(), slots[i].shape))
        return InvalidArgument(slots[i].name + " is " + slots[i].shape.ToString() + " but input " + std::to_string(i) + " holds " +
                               slices[p].shape().ToString() + " per process");
      per_process[p].push_back(std::move(slices[p]));
    }
  }
  return per_process;
}

// Leaf k of the result: every process's leaf k, stacked.
StatusOr<Literal> StackResults(const std::vector<Literal>& results) {
  std::vector<std::vector<const Literal*>> leaves;
  for (const Literal& r : results) leaves.push_back(r.Leaves());
  std::vector<Literal> stacked;
  for (size_t k = 0; k < leaves[0].size(); ++k) {
    if (leaves[0][k]->shape().IsToken()) {  // no data to stack
      stacked.push_back(*leaves[0][k]);
      continue;
    }
    std::vector<const Literal*> slices;
    for (const auto& l : leaves) slices.push_back(l[k]);
    VKXLA_ASSIGN_OR_RETURN(Literal s, StackLiterals(slices));
    stacked.push_back(std::move(s));
  }
  if (!results[0].shape().IsTuple() && stacked.size() == 1) return std::move(stacked[0]);
  return Literal::Tuple(std::move(stacked));
}

StatusOr<std::vector<Device*>> OpenDevices(const RunOptions& o, std::vector<std::unique_ptr<Device>>& opened) {
  std::vector<Device*> devices;
  for (int index : o.devices.empty() ? std::vector<int>{o.device} : o.devices) {
    VKXLA_ASSIGN_OR_RETURN(std::unique_ptr<Device> d, Device::Open(index));
    devices.push_back(d.get());
    opened.push_back(std::move(d));
  }
  return devices;
}

// A run of several processes (replicas × partitions) in this OS process,
// or this rank's process under mpirun; the stacked results, or nullopt on
// a rank other than 0.
StatusOr<std::optional<Literal>> RunProcesses(const RunOptions& o, const Module& module, ProcessGrid grid) {
  VKXLA_RETURN_IF_ERROR(CheckProcessGrid(grid));
  if (!o.infeeds.empty() || !o.outfeeds.empty() || o.dump_plan || o.memory_report || !o.dump_dir.empty())
    return InvalidArgument("--infeed, --outfeed, --dump-plan, --memory-report and --dump-kernels take a run of one process; this one has " +
                           grid.ToString());
  const int64_t n = grid.processes();
  std::vector<Literal> results;
  if (LaunchedByMpirun()) {
    std::vector<ElementType> types;
    for (const InputSlot& slot : EntryInputSlots(*module.entry())) types.push_back(slot.shape.element_type());
    std::vector<std::unique_ptr<Device>> opened;
    std::unique_ptr<Executable> exe;
    auto run = [&](const std::vector<Literal>& inputs, const ProcessContext& context) -> StatusOr<Literal> {
      VKXLA_ASSIGN_OR_RETURN(std::vector<Literal> arguments, EntryArguments(inputs, *module.entry(), o.module_path));
      if (o.reference) {
        EvaluationFeeds feeds;
        feeds.process = context;
        return EvaluateModule(module, arguments, feeds);
      }
      // A rank takes its device from --devices by its process id.
      RunOptions mine = o;
      if (!o.devices.empty()) mine.devices = {o.devices[context.self % o.devices.size()]};
      VKXLA_ASSIGN_OR_RETURN(std::vector<Device*> devices, OpenDevices(mine, opened));
      VKXLA_ASSIGN_OR_RETURN(exe, Executable::Compile(module, *devices[0]));
      exe->SetProcess(context);
      VKXLA_ASSIGN_OR_RETURN(Literal result, exe->Run(arguments));
      VKXLA_RETURN_IF_ERROR(TimeRuns(o, context.self == 0, [&] { return exe->Run(arguments).status(); }));
      return result;
    };
    VKXLA_ASSIGN_OR_RETURN(results, RunMpiRanks(grid, types, [&] { return ReadProcessInputs(o, module, n); }, run));
    if (MpiRank() != 0) return std::optional<Literal>();
  } else {
    VKXLA_ASSIGN_OR_RETURN(std::vector<std::vector<Literal>> inputs, ReadProcessInputs(o, module, n));
    std::vector<std::vector<Literal>> arguments;
    for (std::vector<Literal>& mine : inputs) {
      VKXLA_ASSIGN_OR_RETURN(std::vector<Literal> a, EntryArguments(std::move(mine), *module.entry(), o.module_path));
      arguments.push_back(std::move(a));
    }
    if (o.reference) {
      VKXLA_ASSIGN_OR_RETURN(results, EvaluateProcesses(std::vector<const Module*>(static_cast<size_t>(n), &module), arguments, grid));
    } else {
      std::vector<std::unique_ptr<Device>> opened;
      VKXLA_ASSIGN_OR_RETURN(std::vector<Device*> devices, OpenDevices(o, opened));
      VKXLA_ASSIGN_OR_RETURN(std::unique_ptr<ReplicatedExecutable> exe, ReplicatedExecutable::Compile(module, devices, grid));
      VKXLA_ASSIGN_OR_RETURN(results, exe->Run(arguments));
      VKXLA_RETURN_IF_ERROR(TimeRuns(o, true, [&] { return exe->Run(arguments).status(); }));
    }
  }
  VKXLA_ASSIGN_OR_RETURN(Literal stacked, StackResults(results));
  return std::optional<Literal>(std::move(stacked));
}

Status RunModule(const RunOptions& o) {
  if (o.time_runs > 0 && (o.reference || !o.infeeds.empty() || !o.outfeeds.empty()))
    return InvalidArgument("--time-runs times device runs of the same inputs: it takes no --reference, --infeed or --outfeed");
  VKXLA_ASSIGN_OR_RETURN(std::unique_ptr<Module> module, LoadModuleForInputs(o.module_path, o.function, o.inputs));
  VKXLA_RETURN_IF_ERROR(SetConstantValues(*module, o.constants));
  if (o.layout_report) {
    VKXLA_ASSIGN_OR_RETURN(std::string report, LayoutReport(module->EntryProgramShape()));
    std::cout << report;
  }
  const ProcessGrid grid{o.replicas > 0 ? o.replicas : module->replica_count(), module->num_partitions()};
  if (grid.processes() > 1 || !o.devices.empty() || LaunchedByMpirun()) {
    StatusOr<std::optional<Literal>> result = RunProcesses(o, *module, grid);
    Status s = !result.ok() ? result.status() : *result ? WriteResults(o, **result) : OkStatus();
    if (LaunchedByMpirun()) {
      // A failed rank reports, then ends every rank (none may wait for it).
      if (!s.ok()) std::fprintf(stderr, "vkxla: error: run (rank %d): %s\n", MpiRank(), s.message().c_str());
      FinishMpi(!s.ok());
    }
    return s;
  }
  std::vector<Shape> shapes;
  for (const InputSlot& slot : EntryInputSlots(*module->entry())) shapes.push_back(slot.shape);
  VKXLA_ASSIGN_OR_RETURN(std::vector<Literal> inputs, ReadInputs(o.inputs, shapes));
  VKXLA_ASSIGN_OR_RETURN(std::vector<Literal> arguments, EntryArguments(std::move(inputs), *module->entry(), o.module_path));
  Literal result;
  if (o.reference) {
    // The reference evaluator on the host: what the device's answer is
    // checked against (infeed and outfeed have no queue here).
    if (!o.infeeds.empty() || !o.outfeeds.empty() || o.dump_plan || o.memory_report || !o.dump_dir.empty())
      return InvalidArgument(
          "--reference runs on the host: --infeed, --outfeed, --dump-plan, --memory-report and --dump-kernels need a device");
    VKXLA_ASSIGN_OR_RETURN(result, EvaluateModule(*module, arguments));
  } else {
    VKXLA_ASSIGN_OR_RETURN(result, RunOnDevice(o, *module, arguments));
  }
  return WriteResults(o, result);
}

Status WriteResults(const RunOptions& o, const Literal& result) {
  const std::vector<const Literal*> leaves = result.Leaves();
  if (o.outputs.size() > leaves.size())
    return InvalidArgument(std::to_string(o.outputs.size()) + " --output files were given for " +
                           std::to_string(leaves.size()) + " results");
  for (size_t i = 0; i < o.outputs.size(); ++i) VKXLA_RETURN_IF_ERROR(WriteNpy(WithoutAt(o.outputs[i]), *leaves[i]));
  if (!o.output_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.output_dir, ec);
    for (size_t i = 0; i < leaves.size(); ++i)
      if (!leaves[i]->shape().IsToken())  // a token holds no data: no file, the others keep their numbers
        VKXLA_RETURN_IF_ERROR(WriteNpy(o.output_dir + "/out" + std::to_string(i) + ".npy", *leaves[i]));
  }
  if (o.print || (o.output_dir.empty() && o.outputs.empty())) std::cout << result.ToString() << "\n";
  return OkStatus();
}

}  // namespace

void AddRunCommand(CLI::App& app, int& exit_code) {
  CLI::App* command = AddCommand(app, "run", "Run a module (HLO text, or StableHLO .mlir) once");
  auto o = std::make_shared<RunOptions>();
  command->add_option("module", o->module_path, "the module: .hlo (HLO text) or .mlir (StableHLO)")->required();
  command->add_option("--input,-i", o->inputs,
                      "a parameter's value, in order, one per --input: @x.npy, @args.npz (each array), "
                      "2x3xf32=1,2,3,4,5,6, f32=1.5, or a bare scalar of the parameter's type")
      ->allow_extra_args(false);
  command->add_option("--output,-o", o->outputs, "a result's .npy file, in order of the result's leaves, one per --output (@out.npy)")
      ->allow_extra_args(false);
  command->add_option("--constant", o->constants,
                      "NAME=VALUE: a constant's value (one a dump elides as {...} runs as zeros), as --input takes it; "
                      "one per --constant")
      ->allow_extra_args(false);
  command->add_option("--output-dir", o->output_dir, "write every result as DIR/out0.npy, out1.npy, ...");
  command->add_option("--function", o->function, "StableHLO: the function to run (default @main, else the first)");
  command->add_option("--infeed", o->infeeds, "a .npy value for the infeed queue, in order")->allow_extra_args(false);
  command->add_option("--outfeed", o->outfeeds, "a .npy file for each outfeed value, in order")->allow_extra_args(false);
  AddDeviceOption(*command, o->device);
  command->add_option("--replicas", o->replicas,
                      "run N replicas (default: the module's replica_count); with its num_partitions each is a process, "
                      "and every --input and result holds the processes' values stacked on a leading axis")
      ->check(CLI::Range(1, 1024));
  command->add_option("--devices", o->devices, "a replicated run's devices (0,1,...): processes take them in turn")
      ->delimiter(',')
      ->check(CLI::Range(0, 1 << 20));
  command->add_flag("--print", o->print, "print the results (the default when no output file is given)");
  command->add_flag("--layout-report", o->layout_report, "print each parameter's and result's device placement");
  command->add_flag("--dump-plan", o->dump_plan, "print the program (fusion groups, buffers, steps) before running");
  command->add_flag("--memory-report", o->memory_report,
                    "print the peak device and host memory by buffer class (arguments, results, temporaries, constants) "
                    "and the device's heaps, before running");
  command->add_option("--dump-kernels", o->dump_dir, "write the generated GLSL kernels into DIR");
  command->add_option("--time-runs", o->time_runs,
                      "after the run, run N more times and print the best wall time of one on stderr (a replicated "
                      "run: all its processes; under mpirun, rank 0's)")
      ->check(CLI::Range(0, 100000));
  command->add_flag("--reference", o->reference,
                    "compute the results with the reference evaluator on the host (no device) instead");
  command->callback([o, &exit_code] {
    const Status s = RunModule(*o);
    exit_code = s.ok() ? kExitOk : ReportError("run", s);
  });
}

}  // namespace vkxla
