"""Section 9, cache: builds restored from the build cache against cold ones, and no hit across architectures."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Dict, List, Sequence

from ..archpool import Build, write_manifest
from ..context import Context, SectionResult
from ..errors import BenchError
from ..figures import Figure, at_least, at_most, derived, median_of
from .compile import Project, write_project

SPEEDUP_TARGET = 20.0
CACHED_JOBS_TARGET_S = 1.0
CROSS_ARCHS = ("80", "90")
HIP_ARCHS = ("gfx90a", "gfx942")


def run(ctx: Context) -> SectionResult:
    if not ctx.archpool.has_cache():
        raise BenchError("this archpool has no build cache (--cache); build a newer distribution")
    figures: List[Figure] = []
    raw: Dict = {}
    figures += _projects(ctx, raw)
    figures += _command_jobs(ctx, raw)
    figures += _across_architectures(ctx, raw)
    return SectionResult("cache", "Build cache: cold builds, builds from the cache, and no hit across targets",
                         _notes(ctx), figures, raw=raw)


def _statuses(build: Build) -> List[str]:
    return [job.get("cache", "") for job in build.jobs()]


def _require(build: Build, wanted: str, what: str) -> None:
    statuses = _statuses(build)
    if any(s != wanted for s in statuses):
        raise BenchError(f"[cache] {what}: expected every job '{wanted}', got {sorted(set(statuses))}")


# --stand-ins on: a command job that sleeps this long and copies its source stands in for a CUDA CMake project.
STAND_IN_PROJECT_S = 1.0


def _stand_in_job(project: Project, folder: Path) -> Dict:
    """A command job in place of `project`'s CMake build: it takes STAND_IN_PROJECT_S and writes its library."""
    library = f"build/{project.name}/{project.library}"
    return {"id": project.name, "kind": "command", "cwd": str(folder),
            "argv": ["sh", "-c", f"sleep {STAND_IN_PROJECT_S:g} && mkdir -p build/{project.name} && "
                                 f"cat {project.source.relative_to(folder)}/*.cu > {library}"],
            "inputs": [str(f.relative_to(folder)) for f in sorted(project.source.glob("*.cu"))],
            "artifacts": [library]}


def _projects(ctx: Context, raw: Dict) -> List[Figure]:
    """The compile section's CUDA CMake projects, built cold into a fresh cache, then again from it into fresh
    build folders (with stand-ins: command jobs in their place)."""
    count, j = ctx.options.projects, ctx.options.jobs
    folder = ctx.folder("cache", "projects")
    width = len(str(count - 1))
    projects = [write_project(folder / "src", i, width) for i in range(count)]
    manifest = folder / "manifest.json"
    if ctx.options.stand_ins:
        write_manifest(manifest, [_stand_in_job(p, folder) for p in projects])
    else:
        write_manifest(manifest, [{"id": p.name, "kind": "cmake", "sourceDir": str(p.source),
                                   "buildDir": str(folder / "build" / p.name)} for p in projects])
    cache = folder / "cache"
    flags = ["--arch", ctx.options.arch, f"-j{j}"]
    cold = ctx.archpool.build(manifest, ctx.folder("cache", "projects-cold"), flags, cache=cache)
    _require(cold, "stored", "the cold build")
    libraries = {p.name: (folder / "build" / p.name / p.library).read_bytes() for p in projects}
    shutil.rmtree(folder / "build")
    warm = ctx.archpool.build(manifest, ctx.folder("cache", "projects-warm"), flags, cache=cache)
    _require(warm, "hit", "the build from the cache")
    for p in projects:
        if (folder / "build" / p.name / p.library).read_bytes() != libraries[p.name]:
            raise BenchError(f"[cache] {p.library} restored from the cache differs from the one built")
    speedup = cold.finished.wall_s / warm.finished.wall_s
    ctx.say(f"[cache] {count} projects: cold {cold.finished.wall_s:.2f} s, from the cache "
            f"{warm.finished.wall_s:.2f} s ({speedup:.1f}×)")
    raw["projects"] = {"cold_s": cold.finished.wall_s, "warm_s": warm.finished.wall_s}
    return [
        median_of("cache.projects.cold", f"{count} {_projects_name(ctx)} at -j{j}, cold (stored)", "s",
                  [cold.finished.wall_s], sample_name="build"),
        median_of("cache.projects.warm", f"the same into fresh build folders, from the cache", "s",
                  [warm.finished.wall_s], sample_name="build"),
        derived("cache.projects.speedup", "cold / from the cache (wall)", "ratio", round(speedup, 1),
                at_least(SPEEDUP_TARGET)),
    ]


def _projects_name(ctx: Context) -> str:
    return "command jobs standing in for CUDA CMake projects" if ctx.options.stand_ins else "CUDA CMake projects"


def _offload_flags_echo(output: str) -> List[str]:
    """A command job's argv that writes the offload flags archpool gives it to `output`: stands in for a compiler."""
    return ["sh", "-c", f'echo "$@" > {output}', "sh", "{offload-arch-flags}"]


def _command_jobs(ctx: Context, raw: Dict) -> List[Figure]:
    """`cached_jobs` command jobs with declared inputs: stored, then restored; against the same build of one job,
    which is what starting a build costs."""
    count = ctx.options.cached_jobs
    folder = ctx.folder("cache", "commands")
    jobs = []
    for i in range(count):
        (folder / f"k{i}.cu").write_text(f"// kernel {i}\n")
        jobs.append({"id": f"k{i}", "kind": "command", "cwd": str(folder),
                     "argv": ["cp", f"k{i}.cu", f"k{i}.o"], "inputs": [f"k{i}.cu"], "artifacts": [f"k{i}.o"]})
    manifest = folder / "manifest.json"
    write_manifest(manifest, jobs)
    one = folder / "one.json"
    write_manifest(one, jobs[:1])
    cache = folder / "cache"
    flags = ["--arch", ctx.options.arch, "-j2"]
    _require(ctx.archpool.build(manifest, ctx.folder("cache", "commands-cold"), flags, cache=cache), "stored",
             "the cold command jobs")
    warm_s, one_s = [], []
    for run in range(1, ctx.options.runs + 1):
        for i in range(count):
            (folder / f"k{i}.o").unlink()
        warm = ctx.archpool.build(manifest, ctx.folder("cache", f"commands-warm{run}"), flags, cache=cache)
        _require(warm, "hit", "the command jobs from the cache")
        single = ctx.archpool.build(one, ctx.folder("cache", f"commands-one{run}"), flags, cache=cache)
        warm_s.append(warm.finished.wall_s)
        one_s.append(single.finished.wall_s)
    beyond = max(0.0, sorted(warm_s)[len(warm_s) // 2] - sorted(one_s)[len(one_s) // 2])
    ctx.say(f"[cache] {count} command jobs from the cache: {min(warm_s):.2f}–{max(warm_s):.2f} s; one job "
            f"{min(one_s):.2f}–{max(one_s):.2f} s")
    raw["commands"] = {"warm_s": warm_s, "one_s": one_s}
    return [
        median_of("cache.commands.warm", f"{count} cached command jobs restored (whole build)", "s", warm_s),
        median_of("cache.commands.one", "one cached command job restored (start-up)", "s", one_s),
        derived("cache.commands.beyond", f"{count} jobs beyond start-up", "s", round(beyond, 2),
                at_most(CACHED_JOBS_TARGET_S)),
    ]


def _across_architectures(ctx: Context, raw: Dict) -> List[Figure]:
    """One cache, nvcc command jobs built for two CUDA architectures (and HIP jobs for two AMD ones where
    clang++-19 and Debian's device libraries are there): a build for one is never a hit for the other."""
    folder = ctx.folder("cache", "archs")
    cache = folder / "cache"
    count = 4
    for i in range(count):
        (folder / f"k{i}.cu").write_text(f"__global__ void k{i}(float *x) {{ x[threadIdx.x] *= {i + 2}.0f; }}\n")
    cuda = [{"id": f"k{i}", "kind": "command", "cwd": str(folder),
             "argv": (_offload_flags_echo(f"k{i}.fatbin") if ctx.options.stand_ins
                      else ["nvcc", "-fatbin", "{offload-arch-flags}", "-o", f"k{i}.fatbin", f"k{i}.cu"]),
             "inputs": [f"k{i}.cu"]} for i in range(count)]
    manifest = folder / "cuda.json"
    write_manifest(manifest, cuda)
    hits = {}
    for arch in CROSS_ARCHS:
        build = ctx.archpool.build(manifest, ctx.folder("cache", f"archs-cuda{arch}"),
                                   ["--platform", "cuda", "--arch", arch, "-j2"], cache=cache)
        hits[f"cuda {arch}"] = sum(1 for s in _statuses(build) if s in ("hit", "remote-hit"))
    again = ctx.archpool.build(manifest, ctx.folder("cache", "archs-cuda-again"),
                               ["--platform", "cuda", "--arch", CROSS_ARCHS[0], "-j2"], cache=cache)
    _require(again, "hit", f"the second build for {CROSS_ARCHS[0]}")
    hip = _hip_across(ctx, folder, cache, count)
    hits.update(hip)
    ctx.say(f"[cache] hits across architectures: {hits}")
    raw["archs"] = hits
    nvcc, clang = ("stand-in", "stand-in") if ctx.options.stand_ins else ("nvcc", "clang++-19")
    figures = [derived("cache.archs.cuda", f"hits of a build for {CROSS_ARCHS[1]} after one for {CROSS_ARCHS[0]}"
                       f" ({count} {nvcc} jobs, one cache)", "calls", hits[f"cuda {CROSS_ARCHS[1]}"], at_most(0))]
    if hip:
        figures.append(derived("cache.archs.hip", f"hits of a build for {HIP_ARCHS[1]} after one for {HIP_ARCHS[0]}"
                               f" ({count} {clang} HIP jobs, the same cache)", "calls", hip[f"hip {HIP_ARCHS[1]}"],
                               at_most(0)))
    return figures


def _device_libraries(folder: Path, debian: Path) -> Path:
    """Debian's device libraries plus the gfx942 ISA version they lack, made from the gfx90a one with LLVM 19's
    llvm-dis and llvm-as (the recipe of the project's HIP tests)."""
    libs = folder / "bitcode"
    libs.mkdir()
    for f in debian.glob("*.bc"):
        (libs / f.name).symlink_to(f)
    text = subprocess.run(["llvm-dis-19", str(debian / "oclc_isa_version_90a.bc"), "-o", "-"], check=True,
                          capture_output=True, text=True).stdout
    subprocess.run(["llvm-as-19", "-", "-o", str(libs / "oclc_isa_version_942.bc")], check=True,
                   input=text.replace("i32 9010", "i32 9402"), text=True)
    return libs


def _hip_across(ctx: Context, folder: Path, cache: Path, count: int) -> Dict[str, int]:
    clang = shutil.which("clang++-19")
    debian = Path("/usr/lib/x86_64-linux-gnu/amdgcn/bitcode")
    if ctx.options.stand_ins:
        argv = _offload_flags_echo
    elif clang is None or not debian.is_dir() or not shutil.which("llvm-as-19") or not shutil.which("llvm-dis-19"):
        ctx.say("[cache] no clang++-19, LLVM 19 tools or Debian device libraries: the HIP part is not measured")
        return {}
    else:
        bitcode = _device_libraries(folder, debian)

        def argv(output: str) -> List[str]:
            return [clang, "-x", "hip", "--cuda-device-only", "{offload-arch-flags}", "--rocm-path=/usr",
                    f"--rocm-device-lib-path={bitcode}", "-c", "-o", output, output[:-2] + ".hip"]
    for i in range(count):
        (folder / f"h{i}.hip").write_text(
            f"#include <hip/hip_runtime.h>\n__global__ void h{i}(float *x) {{ x[threadIdx.x] *= {i + 2}.0f; }}\n")
    jobs = [{"id": f"h{i}", "kind": "command", "cwd": str(folder), "argv": argv(f"h{i}.o"),
             "inputs": [f"h{i}.hip"]} for i in range(count)]
    manifest = folder / "hip.json"
    write_manifest(manifest, jobs)
    hits = {}
    for arch in HIP_ARCHS:
        build = ctx.archpool.build(manifest, ctx.folder("cache", f"archs-{arch}"),
                                   ["--platform", "hip", "--arch", arch, "-j2", "--no-toolchain-check"], cache=cache)
        hits[f"hip {arch}"] = sum(1 for s in _statuses(build) if s in ("hit", "remote-hit"))
    return hits


def _notes(ctx: Context) -> str:
    n, j = ctx.options.projects, ctx.options.jobs
    stand_ins = (
        f"**Stand-ins** (`--stand-ins on`, the default of `--smoke`): no compiler runs here. Each project is a "
        f"command job that sleeps {STAND_IN_PROJECT_S:g} s and writes its library from its sources, and each nvcc "
        f"or clang++-19 job below writes the offload flags archpool gives it; manifests, flags, caches and "
        f"checks are the same.\n\n") if ctx.options.stand_ins else ""
    return stand_ins + (
        f"**Projects.** The compile section's {n} generated CUDA CMake projects (one kernel each), built by "
        f"`archpool build --arch {ctx.options.arch} -j{j} --cache DIR` into a fresh cache (every job `stored`; "
        f"unseeded configures, as a user's first build is), then the build folders removed and the same command "
        f"run again (every job a `hit`, each library byte-identical to the one built). Wall time of the whole "
        f"command, one build each.\n\n"
        f"**Command jobs.** {ctx.options.cached_jobs} command jobs (`cp kN.cu kN.o`, `inputs` and `artifacts` "
        f"declared) stored once, then their outputs removed and restored, against the same build of one such job "
        f"(what starting a build, resolving and checking the toolchain costs): the difference is what "
        f"{ctx.options.cached_jobs} restores add. {ctx.options.runs} runs each, interleaved.\n\n"
        f"**Across architectures.** One cache; 4 `nvcc -fatbin {{offload-arch-flags}}` jobs built for "
        f"{CROSS_ARCHS[0]}, then for {CROSS_ARCHS[1]} (the hits of the second build are counted: the target is in "
        f"every key), then for {CROSS_ARCHS[0]} again (every job a hit: the cache works). The same with 4 HIP "
        f"jobs (`clang++-19 -x hip --cuda-device-only`) for {HIP_ARCHS[0]} and {HIP_ARCHS[1]} where clang 19 "
        f"and Debian's device libraries are installed.")
