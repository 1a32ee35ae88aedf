package org.archpool.orchestrator.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Make-syntax dependency files, real ones captured from a CMake 3.25 Unix Makefiles build (nvcc 13 and g++ 12) of
 * a project under {@code /projects/reads/proj} whose {@code include_directories} names
 * {@code /projects/reads/outside}, and written ones for the escapes.
 */
class DepfileTest {

    static String sample(String name) throws IOException {
        try (InputStream in = DepfileTest.class.getResourceAsStream("/makefile-reads/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void nvccsDepfileListsTheSourceAndEveryHostAndDeviceHeader() throws Exception {
        Depfile depfile = Depfile.parse(sample("CMakeFiles/reads.dir/kernels.cu.o.d"));

        assertThat(depfile.rules()).hasSize(1);
        assertThat(depfile.targets()).containsExactly("CMakeFiles/reads.dir/kernels.cu.o");
        assertThat(depfile.prerequisites()).hasSize(187)
                .startsWith("/projects/reads/proj/kernels.cu", "/usr/include/stdc-predef.h")
                .contains("/projects/reads/outside/outside.h",
                        "/usr/local/cuda-13.0/bin/../targets/x86_64-linux/include/crt/device_functions.h")
                .endsWith("/projects/reads/proj/local.h");
    }

    @Test
    void gccsDepfileAndMakesConsolidatedOneWithItsEmptyRules() throws Exception {
        Depfile host = Depfile.parse(sample("CMakeFiles/reads.dir/host.cpp.o.d"));
        assertThat(host.targets()).containsExactly("CMakeFiles/reads.dir/host.cpp.o");
        assertThat(host.prerequisites()).startsWith("/projects/reads/proj/host.cpp", "/usr/include/stdc-predef.h",
                "/projects/reads/outside/outside.h", "/usr/include/c++/12/vector");

        Depfile consolidated = Depfile.parse(sample("consolidated/compiler_depend.make"));
        assertThat(consolidated.targets()).contains("CMakeFiles/reads.dir/host.cpp.o",
                "CMakeFiles/reads.dir/kernels.cu.o", "/projects/reads/outside/outside.h");
        assertThat(consolidated.rules()).filteredOn(r -> r.targets().equals(List.of(
                "/projects/reads/outside/outside.h"))).singleElement()
                .satisfies(r -> assertThat(r.prerequisites()).isEmpty());
        assertThat(Depfile.parse(sample("CMakeFiles/reads.dir/compiler_depend.make")).rules()).isEmpty();
    }

    @Test
    void escapesContinuationsAndCommentsAreUndone() throws Exception {
        Depfile depfile = Depfile.parse("""
                # a comment
                a\\ b.o c.o : /src/with\\ space.c \\
                  /inc/cost$$.h /inc/hash\\#.h \\
                \t/inc/last.h
                /inc/last.h:
                """);

        assertThat(depfile.rules()).containsExactly(
                new Depfile.Rule(List.of("a b.o", "c.o"),
                        List.of("/src/with space.c", "/inc/cost$.h", "/inc/hash#.h", "/inc/last.h")),
                new Depfile.Rule(List.of("/inc/last.h"), List.of()));
        assertThat(Depfile.parse("o.o: /x.h \\\n").prerequisites()).containsExactly("/x.h");
        assertThatThrownBy(() -> Depfile.parse("o.o: /x.h\nCMAKE_COMMAND = /usr/bin/cmake\n"))
                .isInstanceOf(Depfile.Malformed.class).hasMessageContaining("line 2");
    }
}
