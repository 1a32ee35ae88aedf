package org.archpool.orchestrator.cli;

import org.archpool.orchestrator.verify.Verification;
import org.archpool.orchestrator.verify.VerifyPolicy;
import picocli.CommandLine.Option;

/** How what a job built is checked, and whether the compiler is asked about the target first: build and serve. */
public final class CheckOptions {

    @Option(names = "--verify", paramLabel = "strict|exact|warn|off", defaultValue = "strict",
            description = "Check the GPU code in what each job built: strict (default) fails a job whose artifacts"
                    + " lack a requested architecture, exact also fails on extra ones, warn only warns, off skips.")
    VerifyPolicy verify;

    @Option(names = "--forbid-hostcall",
            description = "Fail jobs whose AMD kernels need a hostcall buffer (device printf or assert), which GPUs on"
                    + " platforms without PCIe atomics cannot dispatch.")
    boolean forbidHostcall;

    @Option(names = "--no-toolchain-check",
            description = "Do not ask the compiler (nvcc, hipcc or clang++; $CUDACXX/$HIPCXX) whether it supports the"
                    + " resolved architectures before the build.")
    boolean noToolchainCheck;

    Verification verification() {
        return new Verification(verify, forbidHostcall);
    }
}
