package org.archpool.worker.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every container a GPU build produces, built with the real compilers, read through the one entry point the
 * worker and {@code archpool inspect} use.
 */
@Tag("process")
class GpuCodeInspectorTest {

    private final GpuCodeInspector inspector = new GpuCodeInspector();

    @Test
    void aHipExecutableListsItsTargetsAndHostcallKernels(@TempDir Path dir) throws Exception {
        Path exe = HipCompiler.require().hipcc(dir, HipCompiler.PRINTF_SOURCE, "libp.so", "-shared", "-fPIC",
                "--offload-arch=gfx90a", "--offload-arch=gfx906");
        GpuCode code = inspector.inspect(exe);
        assertThat(code.archs()).containsExactlyInAnyOrder("gfx90a", "gfx906");
        assertThat(code.hostcallKernels()).containsExactlyInAnyOrder("gfx90a:" + HipCompiler.HELLO,
                "gfx906:" + HipCompiler.HELLO);
        assertThat(code.hip()).allSatisfy(h -> {
            assertThat(h.source()).isEqualTo(".hip_fatbin");
            assertThat(h.bundleId()).startsWith("hipv4-amdgcn-amd-amdhsa--");
            assertThat(h.codeObject()).isNotNull();
        });
        assertThat(code.problems()).isEmpty();
        assertThat(GpuCodeInspector.container(exe)).isEqualTo(GpuCodeInspector.Container.ELF);
    }

    @Test
    void hipccWithoutOffloadArchBuildsGfx803(@TempDir Path dir) throws Exception {
        Path exe = HipCompiler.require().hipcc(dir, HipCompiler.KERNEL_SOURCE, "k.o", "-c");
        assertThat(inspector.inspect(exe).archs()).containsExactly("gfx803");
    }

    @Test
    void aLibraryOfTwoTranslationUnitsHasOneBundleEach(@TempDir Path dir) throws Exception {
        HipCompiler hip = HipCompiler.require();
        Files.writeString(dir.resolve("second.hip"), HipCompiler.ASSERT_SOURCE);
        Path lib = hip.clang(dir, HipCompiler.KERNEL_SOURCE, "libtwo.so", "-O2", "-shared", "-fPIC",
                "--offload-arch=gfx942", "--offload-compress", "second.hip");
        GpuCode code = inspector.inspect(lib);
        assertThat(code.hip()).hasSize(2).allSatisfy(h -> assertThat(h.compressed()).isTrue());
        assertThat(code.archs()).containsExactly("gfx942");
        assertThat(code.hostcallKernels()).containsExactly("gfx942:" + HipCompiler.CHECKED);
    }

    @Test
    void aCompressedBundleTooLargeToDecodeIsAProblemNotAFailure(@TempDir Path dir) throws Exception {
        Path lib = HipCompiler.require().clang(dir, HipCompiler.KERNEL_SOURCE, "libc.so", "-shared", "-fPIC",
                "--offload-arch=gfx942", "--offload-compress");
        GpuCode code = new GpuCodeInspector(1024).inspect(lib);
        assertThat(code.archs()).isEmpty();
        assertThat(code.problems()).singleElement().asString().startsWith(".hip_fatbin: ").contains("was not read");
    }

    @Test
    void relocatableDeviceCodeListsTargetsWithoutCodeObjects(@TempDir Path dir) throws Exception {
        Path object = HipCompiler.require().clang(dir, HipCompiler.KERNEL_SOURCE, "k.o", "-c", "-fgpu-rdc",
                "--offload-arch=gfx1100");
        GpuCode code = inspector.inspect(object);
        assertThat(code.archs()).containsExactly("gfx1100");
        assertThat(code.hip()).singleElement().satisfies(h -> assertThat(h.codeObject()).isNull());
        assertThat(code.problems()).isEmpty();
    }

    @Test
    void bundleFilesCodeObjectsAndStaticLibraries(@TempDir Path dir) throws Exception {
        HipCompiler hip = HipCompiler.require();
        Path bundle = hip.hipcc(dir, HipCompiler.KERNEL_SOURCE, "k.co", "--genco", "--offload-arch=gfx90a");
        assertThat(GpuCodeInspector.container(bundle)).isEqualTo(GpuCodeInspector.Container.OFFLOAD_BUNDLE);
        assertThat(inspector.inspect(bundle).hip()).singleElement()
                .satisfies(h -> assertThat(h.source()).isEqualTo("bundle"));

        HipCompiler.run(dir, List.of(hip.bundler().toString(), "--unbundle", "--type=o", "--input=k.co",
                "--targets=hipv4-amdgcn-amd-amdhsa--gfx90a", "--output=k.hsaco"));
        GpuCode bare = inspector.inspect(dir.resolve("k.hsaco"));
        assertThat(bare.hip()).singleElement().satisfies(h -> {
            assertThat(h.source()).isEqualTo("code object");
            assertThat(h.targetId()).isEqualTo("gfx90a");
            assertThat(h.codeObject().kernels()).extracting(AmdKernel::name).containsExactly(HipCompiler.SCALE);
        });

        hip.hipcc(dir, HipCompiler.KERNEL_SOURCE, "a.o", "-c", "-fPIC", "--offload-arch=gfx90a");
        hip.hipcc(dir, HipCompiler.PRINTF_SOURCE, "b.o", "-c", "-fPIC", "--offload-arch=gfx906");
        HipCompiler.run(dir, List.of("ar", "rcs", "libk.a", "a.o", "b.o"));
        GpuCode archive = inspector.inspect(dir.resolve("libk.a"));
        assertThat(archive.archs()).containsExactly("gfx90a", "gfx906");
        assertThat(archive.hip()).extracting(HipCode::source)
                .containsExactly("libk.a(a.o) .hip_fatbin", "libk.a(b.o) .hip_fatbin");
        assertThat(archive.hostcallKernels()).containsExactly("gfx906:" + HipCompiler.HELLO);
    }

    @Test
    void cudaFatBinariesInLibrariesFatbinFilesAndRdcObjects(@TempDir Path dir) throws Exception {
        Nvcc nvcc = Nvcc.require();
        Path lib = nvcc.sharedLibrary(dir, "-gencode=arch=compute_80,code=sm_80",
                "-gencode=arch=compute_90,code=[sm_90,compute_90]");
        assertThat(inspector.inspect(lib).archs()).containsExactlyInAnyOrder("sm_80", "sm_90", "compute_90");
        Path fatbin = nvcc.compile(dir, "f.cu", Nvcc.KERNEL_SOURCE, "k.fatbin", "-fatbin", "-arch=sm_90");
        assertThat(GpuCodeInspector.container(fatbin)).isEqualTo(GpuCodeInspector.Container.CUDA_FATBIN);
        assertThat(inspector.inspect(fatbin).archs()).contains("sm_90");
        Path rdc = nvcc.compile(dir, "r.cu", Nvcc.KERNEL_SOURCE, "r.o", "-c", "-rdc=true", "-arch=sm_90");
        GpuCode code = inspector.inspect(rdc);
        assertThat(code.archs()).contains("sm_90");
        assertThat(code.cuda()).allSatisfy(c -> assertThat(c.source()).isEqualTo("__nv_relfatbin"));
    }

    @Test
    void filesWithoutGpuCode(@TempDir Path dir) throws Exception {
        Path text = Files.writeString(dir.resolve("CMakeCache.txt"), "X:BOOL=ON\n");
        assertThat(GpuCodeInspector.container(text)).isEqualTo(GpuCodeInspector.Container.NONE);
        assertThat(inspector.inspect(text)).isEqualTo(GpuCode.NONE);
        Path empty = Files.write(dir.resolve("empty"), new byte[0]);
        assertThat(inspector.inspect(empty)).isEqualTo(GpuCode.NONE);
        Path elf = Files.write(dir.resolve("host.so"), new TestElf().section(".text", new byte[16]).build());
        assertThat(inspector.inspect(elf)).isEqualTo(GpuCode.NONE);
    }

    @ParameterizedTest(name = "bundle entry {0}, code object {1}: {2}")
    @CsvSource({
        "gfx90a,        gfx90a,                 true",
        "gfx90a:xnack+, gfx90a:sramecc+:xnack+, true",
        "gfx90a,        gfx90a:xnack-,          true",
        "gfx90a:xnack+, gfx90a:xnack-,          false",
        "gfx90a,        gfx942,                 false",
    })
    void aCodeObjectAgreesWithItsBundleEntryWhenNoFeatureIsContradicted(String entry, String codeObject,
            boolean agrees) {
        assertThat(GpuCodeInspector.agrees(entry, codeObject)).isEqualTo(agrees);
    }
}
