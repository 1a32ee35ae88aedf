package org.archpool.orchestrator.toolchain;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.archpool.protocol.CmakeJob;
import org.archpool.protocol.Platform;
import org.archpool.protocol.Target;

/**
 * The two CMake command lines of a {@link CmakeJob}: configure (generator, build type, the user's defines,
 * then the architecture define derived from the target, then extra arguments) and build
 * ({@code --parallel K}, targets, extra arguments).
 */
public final class CmakeInvocation {

    private final String cmake;

    /** @param cmake the cmake program to run (normally {@code cmake} from the PATH) */
    public CmakeInvocation(String cmake) {
        this.cmake = cmake;
    }

    public List<String> configure(CmakeJob job, Target target) {
        List<String> argv = new ArrayList<>(List.of(cmake, "-S", job.sourceDir(), "-B", job.buildDir(),
                "-G", job.generator()));
        if (job.buildType() != null) {
            argv.add("-DCMAKE_BUILD_TYPE=" + job.buildType());
        }
        for (Map.Entry<String, String> define : job.defines().entrySet()) {
            argv.add("-D" + define.getKey() + "=" + define.getValue());
        }
        argv.add("-D" + architecturesVariable(target.platform()) + "=" + target.cmakeList());
        argv.addAll(job.configureArgs());
        return argv;
    }

    public List<String> build(CmakeJob job, int parallelism) {
        List<String> argv = new ArrayList<>(List.of(cmake, "--build", job.buildDir(),
                "--parallel", Integer.toString(parallelism)));
        if (!job.targets().isEmpty()) {
            argv.add("--target");
            argv.addAll(job.targets());
        }
        argv.addAll(job.buildArgs());
        return argv;
    }

    /** {@code CMAKE_HIP_ARCHITECTURES} or {@code CMAKE_CUDA_ARCHITECTURES}. */
    public static String architecturesVariable(Platform platform) {
        return platform == Platform.HIP ? "CMAKE_HIP_ARCHITECTURES" : "CMAKE_CUDA_ARCHITECTURES";
    }
}
