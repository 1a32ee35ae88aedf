package org.archpool.orchestrator.toolchain;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.archpool.protocol.Platform;
import org.archpool.protocol.Target;

/**
 * Compiler flags that select the target's architectures, one argv item per architecture:
 * {@code --offload-arch=gfx942} for hipcc/clang; for nvcc, {@code -gencode=arch=compute_90,code=[compute_90,sm_90]}
 * for CMake's {@code 90} (real code and PTX), {@code code=sm_90} for {@code 90-real},
 * {@code code=compute_90} for {@code 90-virtual}, and {@code -arch=all} / {@code -arch=all-major}.
 */
public final class OffloadArchFlags {

    private static final Pattern CUDA_ARCH = Pattern.compile("(\\d+[af]?)(-real|-virtual)?");

    private OffloadArchFlags() {
    }

    public static List<String> flags(Target target) {
        List<String> flags = new ArrayList<>();
        for (String arch : target.archs()) {
            flags.add(target.platform() == Platform.HIP ? "--offload-arch=" + arch : nvccFlag(arch));
        }
        return flags;
    }

    static String nvccFlag(String arch) {
        if (arch.equals("all") || arch.equals("all-major")) {
            return "-arch=" + arch;
        }
        Matcher m = CUDA_ARCH.matcher(arch);
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + arch + "' is not a CUDA architecture in CMake's spelling");
        }
        String sm = m.group(1);
        String code;
        if ("-real".equals(m.group(2))) {
            code = "sm_" + sm;
        } else if ("-virtual".equals(m.group(2))) {
            code = "compute_" + sm;
        } else {
            code = "[compute_" + sm + ",sm_" + sm + "]";
        }
        return "-gencode=arch=compute_" + sm + ",code=" + code;
    }
}
