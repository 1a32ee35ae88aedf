package org.archpool.worker.inspect;

import static org.archpool.worker.inspect.ArArchiveTest.LONG_NAME;
import static org.archpool.worker.inspect.ArArchiveTest.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.archpool.testing.RequiredTool;
import org.archpool.worker.inspect.ArArchive.Member;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ArArchive} on archives of hipcc objects made by the real GNU ar and llvm-ar (see {@link HipCompiler} and
 * {@link RequiredTool}). No GPU is needed.
 */
@Tag("process")
class ArArchiveToolchainTest {

    @TempDir
    Path dir;

    /**
     * Archives of two hipcc objects, one with a long name, made by GNU ar (with its symbol table and long-name
     * table) and by llvm-ar in BSD format: the members are the objects, byte for byte, and their bundles are read.
     */
    @Test
    void readsArchivesOfHipccObjectsMadeByArAndLlvmAr() throws Exception {
        HipCompiler hip = HipCompiler.require();
        Map<String, String> env = System.getenv();
        String hint = "apt-get install binutils llvm-19";
        Path ar = RequiredTool.require(RequiredTool.findOnPath("ar", env), "ar", hint, env);
        Path llvmAr = RequiredTool.require(llvmAr(env), "llvm-ar-19", hint, env);
        Path first = hip.hipcc(dir, HipCompiler.KERNEL_SOURCE, "k.o", "-c", "--offload-arch=gfx90a");
        Path second = Files.move(hip.hipcc(dir, HipCompiler.ASSERT_SOURCE, "checked.o", "-c",
                "--offload-arch=gfx906"), dir.resolve(LONG_NAME));

        HipCompiler.run(dir, List.of(ar.toString(), "rcs", "libgnu.a", "k.o", LONG_NAME));
        HipCompiler.run(dir, List.of(llvmAr.toString(), "--format=bsd", "rcs", "libbsd.a", "k.o", LONG_NAME));
        HipCompiler.run(dir, List.of(ar.toString(), "rcsT", "libthin.a", "k.o"));

        for (String library : List.of("libgnu.a", "libbsd.a")) {
            List<Member> members = ArArchive.read(ByteBuffer.wrap(Files.readAllBytes(dir.resolve(library))));

            assertThat(members).as(library).extracting(Member::name).containsExactly("k.o", LONG_NAME);
            assertThat(bytes(members.get(0).data())).isEqualTo(Files.readAllBytes(first));
            assertThat(bytes(members.get(1).data())).isEqualTo(Files.readAllBytes(second));
            List<String> targets = new ArrayList<>();
            for (Member member : members) {
                ByteBuffer fatbin = ElfFile.of(member.data()).section(".hip_fatbin").orElseThrow();
                OffloadBundle.read(fatbin, Long.MAX_VALUE).deviceEntries().forEach(e -> targets.add(e.targetId()));
            }
            assertThat(targets).containsExactly("gfx90a", "gfx906");
        }
        assertThatThrownBy(() -> ArArchive.read(ByteBuffer.wrap(Files.readAllBytes(dir.resolve("libthin.a")))))
                .isInstanceOf(ArArchiveFormatException.class)
                .hasMessageContaining("thin archive");
    }

    private static Optional<Path> llvmAr(Map<String, String> env) {
        Optional<Path> versioned = RequiredTool.findOnPath("llvm-ar-19", env);
        return versioned.isPresent() ? versioned : RequiredTool.executable("/usr/lib/llvm-19/bin", "llvm-ar");
    }
}
