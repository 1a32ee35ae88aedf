package org.archpool.worker.inspect;

import static org.archpool.worker.inspect.TestFatbin.A;
import static org.archpool.worker.inspect.TestFatbin.BASE_FLAGS;
import static org.archpool.worker.inspect.TestFatbin.CUBIN;
import static org.archpool.worker.inspect.TestFatbin.F;
import static org.archpool.worker.inspect.TestFatbin.LTO_IR;
import static org.archpool.worker.inspect.TestFatbin.LZ4;
import static org.archpool.worker.inspect.TestFatbin.PTX;
import static org.archpool.worker.inspect.TestFatbin.ZSTD;
import static org.archpool.worker.inspect.TestFatbin.blob;
import static org.archpool.worker.inspect.TestFatbin.buffer;
import static org.archpool.worker.inspect.TestFatbin.concat;
import static org.archpool.worker.inspect.TestFatbin.cubin;
import static org.archpool.worker.inspect.TestFatbin.cubinHeader;
import static org.archpool.worker.inspect.TestFatbin.entry;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.OptionalInt;
import java.util.Random;

import org.archpool.worker.inspect.FatbinEntry.Kind;
import org.archpool.worker.inspect.FatbinEntry.Variant;
import org.junit.jupiter.api.Test;

/** {@link CudaFatbin} on synthetic section contents built to the measured layout; needs no nvcc. */
class CudaFatbinTest {

    private static final byte[] PTX_TEXT = ".version 9.0\n.target sm_90\n".getBytes(StandardCharsets.US_ASCII);

    @Test
    void emptySectionHasNoBlobs() throws Exception {
        CudaFatbin fatbin = CudaFatbin.parse(buffer(new byte[0]));

        assertThat(fatbin.blobCount()).isZero();
        assertThat(fatbin.entries()).isEmpty();
    }

    @Test
    void parsesOneCubinAndCrossChecksItsElfHeader() throws Exception {
        byte[] section = blob(entry(CUBIN, 90, BASE_FLAGS, cubin(90)));

        CudaFatbin fatbin = CudaFatbin.parse(buffer(section));

        assertThat(fatbin.blobCount()).isEqualTo(1);
        assertThat(fatbin.entries()).containsExactly(
                new FatbinEntry(Kind.CUBIN, 90, Variant.NONE, false, OptionalInt.of(90), OptionalInt.of(1), 0, 0x10));
    }

    @Test
    void parsesEveryBlobOfASectionSkippingZeroPadding() throws Exception {
        byte[] first = blob(entry(CUBIN, 80, BASE_FLAGS, cubin(80)), entry(CUBIN, 90, BASE_FLAGS, cubin(90)));
        byte[] second = blob(entry(PTX, 90, BASE_FLAGS | ZSTD, PTX_TEXT, 0x50));
        byte[] third = blob(entry(CUBIN, 120, BASE_FLAGS | A, cubin(120)));
        byte[] section = concat(first, second, new byte[16], third, new byte[8]);

        CudaFatbin fatbin = CudaFatbin.parse(buffer(section));

        assertThat(fatbin.blobCount()).isEqualTo(3);
        assertThat(fatbin.entries()).extracting(FatbinEntry::archName)
                .containsExactly("sm_80", "sm_90", "compute_90", "sm_120a");
        assertThat(fatbin.entries()).extracting(FatbinEntry::blob).containsExactly(0, 0, 1, 2);
        int firstEntry = 0x40 + cubin(80).length;
        assertThat(fatbin.entries()).extracting(FatbinEntry::offset).containsExactly(
                0x10L, 0x10L + firstEntry, (long) first.length + 0x10, (long) first.length + second.length + 16 + 0x10);
    }

    @Test
    void skipsZeroPaddingUpToTheNextEightByteBoundary() throws Exception {
        byte[] unaligned = blob(entry(CUBIN, 90, BASE_FLAGS, new byte[8], 0x34)); // 0x4c bytes
        byte[] next = blob(entry(CUBIN, 80, BASE_FLAGS, cubin(80)));

        CudaFatbin fatbin = CudaFatbin.parse(buffer(concat(unaligned, new byte[4], next, new byte[3])));

        assertThat(unaligned.length % 8).isEqualTo(4);
        assertThat(fatbin.entries()).extracting(FatbinEntry::archName).containsExactly("sm_90", "sm_80");
        assertThat(fatbin.entries().get(1).offset()).isEqualTo(unaligned.length + 4 + 0x10);
    }

    @Test
    void rejectsNonZeroPaddingAndBlobsThatDoNotStartAtThePaddingsEnd() {
        byte[] unaligned = blob(entry(CUBIN, 90, BASE_FLAGS, new byte[8], 0x34));
        byte[] next = blob(entry(CUBIN, 80, BASE_FLAGS, cubin(80)));
        byte[] dirtyPadding = concat(unaligned, new byte[] {0, 0, 7, 0}, next);
        byte[] misplacedBlob = concat(next, new byte[2], next);

        assertThatThrownBy(() -> CudaFatbin.parse(buffer(dirtyPadding)))
                .isInstanceOf(FatbinFormatException.class)
                .hasMessageContaining("non-zero byte 0x7 in the padding after the fat binary that ends at offset 0x4c");
        assertThatThrownBy(() -> CudaFatbin.parse(buffer(misplacedBlob)))
                .isInstanceOf(FatbinFormatException.class)
                .hasMessageContaining("bad fat binary magic 0xed500000")
                .hasMessageContaining("at offset 0x" + Integer.toHexString(next.length));
    }

    @Test
    void readsTheVariantFlags() throws Exception {
        byte[] section = blob(
                entry(CUBIN, 90, BASE_FLAGS | A, cubin(90)),
                entry(CUBIN, 100, BASE_FLAGS | F | 0x1000000, cubin(100)),
                entry(PTX, 100, BASE_FLAGS | F | ZSTD, PTX_TEXT, 0x50),
                entry(CUBIN, 90, BASE_FLAGS, cubin(90)));

        CudaFatbin fatbin = CudaFatbin.parse(buffer(section));

        assertThat(fatbin.entries()).extracting(FatbinEntry::variant)
                .containsExactly(Variant.A, Variant.F, Variant.F, Variant.NONE);
        assertThat(fatbin.entries()).extracting(FatbinEntry::archName)
                .containsExactly("sm_90a", "sm_100f", "compute_100f", "sm_90");
    }

    @Test
    void rejectsBothVariantFlags() {
        byte[] section = blob(entry(CUBIN, 100, BASE_FLAGS | A | F, cubin(100)));

        assertThatThrownBy(() -> CudaFatbin.parse(buffer(section)))
                .isInstanceOf(FatbinFormatException.class)
                .hasMessageContaining("both the 'a' and the 'f' variant flag")
                .hasMessageContaining("offset 0x10");
    }

    @Test
    void zstdAndLz4FlagsMeanCompressedAndSkipTheCrossCheck() throws Exception {
        byte[] section = blob(
                entry(PTX, 90, BASE_FLAGS | ZSTD, PTX_TEXT, 0x50),
                entry(PTX, 90, BASE_FLAGS | LZ4, PTX_TEXT, 0x50),
                entry(PTX, 90, BASE_FLAGS, PTX_TEXT, 0x50),
                entry(CUBIN, 90, BASE_FLAGS | ZSTD, new byte[] {0x28, (byte) 0xb5, 0x2f, (byte) 0xfd}));

        CudaFatbin fatbin = CudaFatbin.parse(buffer(section));

        assertThat(fatbin.entries()).extracting(FatbinEntry::compressed).containsExactly(true, true, false, true);
        assertThat(fatbin.entries()).extracting(FatbinEntry::cubinElfSm).containsOnly(OptionalInt.empty());
    }

    @Test
    void reportsACubinWhoseElfHeaderDisagreesInsteadOfThrowing() throws Exception {
        byte[] section = blob(entry(CUBIN, 90, BASE_FLAGS, cubin(86)));

        FatbinEntry entry = CudaFatbin.parse(buffer(section)).entries().get(0);

        assertThat(entry.sm()).isEqualTo(90);
        assertThat(entry.cubinElfSm()).hasValue(86);
        assertThat(entry.smMismatch()).isTrue();
        assertThat(entry.archName()).isEqualTo("sm_90");
    }

    @Test
    void crossCheckReadsTheLowByteForTheOlderCubinAbi() throws Exception {
        byte[] v7 = cubinHeader(7, 0x005a055a); // ELFABIVERSION_CUDA_V1: SM in bits 0-7
        byte[] unknownAbi = cubinHeader(9, 0x5a00);
        byte[] notCuda = cubinHeader(90);
        notCuda[18] = 62; // e_machine x86-64
        byte[] section = blob(
                entry(CUBIN, 90, BASE_FLAGS, v7),
                entry(CUBIN, 90, BASE_FLAGS, unknownAbi),
                entry(CUBIN, 90, BASE_FLAGS, notCuda),
                entry(CUBIN, 90, BASE_FLAGS, new byte[8]));

        CudaFatbin fatbin = CudaFatbin.parse(buffer(section));

        assertThat(fatbin.entries()).extracting(FatbinEntry::cubinElfSm).containsExactly(
                OptionalInt.of(90), OptionalInt.empty(), OptionalInt.empty(), OptionalInt.empty());
    }

    @Test
    void countsTheCodeSectionsOfUncompressedCubins() throws Exception {
        byte[] twoFunctions = cubin(90, ".text._Z1fv", ".nv.info._Z1fv", ".text._Z1gv");
        byte[] deviceLinkStub = cubin(90, ".note.nv.cuinfo", ".nv.callgraph", ".nv.rel.action");
        byte[] section = blob(
                entry(CUBIN, 90, BASE_FLAGS, twoFunctions),
                entry(CUBIN, 90, BASE_FLAGS, deviceLinkStub),
                entry(CUBIN, 90, BASE_FLAGS | ZSTD, new byte[16]),
                entry(PTX, 90, BASE_FLAGS, PTX_TEXT));

        CudaFatbin fatbin = CudaFatbin.parse(buffer(section));

        assertThat(fatbin.entries()).extracting(FatbinEntry::cubinCodeSections).containsExactly(
                OptionalInt.of(2), OptionalInt.of(0), OptionalInt.empty(), OptionalInt.empty());
        assertThat(fatbin.entries()).extracting(FatbinEntry::isEmptyCubin).containsExactly(false, true, false, false);
    }

    @Test
    void aCubinWithACorruptElfImageOnlyLosesTheCrossChecks() throws Exception {
        byte[] corrupt = cubin(90);
        buffer(corrupt).putLong(TestElf.E_SHOFF, 1L << 40);

        FatbinEntry entry = CudaFatbin.parse(buffer(blob(entry(CUBIN, 90, BASE_FLAGS, corrupt)))).entries().get(0);

        assertThat(entry.archName()).isEqualTo("sm_90");
        assertThat(entry.cubinElfSm()).isEmpty();
        assertThat(entry.cubinCodeSections()).isEmpty();
        assertThat(entry.isEmptyCubin()).isFalse();
    }

    @Test
    void knowsLtoIrAndKeepsUnknownKinds() throws Exception {
        byte[] section = blob(
                entry(LTO_IR, 90, BASE_FLAGS | ZSTD | 0x10000, new byte[16], 0x78),
                entry(5, 90, BASE_FLAGS, new byte[16]));

        CudaFatbin fatbin = CudaFatbin.parse(buffer(section));

        assertThat(fatbin.entries()).extracting(FatbinEntry::kind).containsExactly(Kind.LTO_IR, Kind.UNKNOWN);
        assertThat(fatbin.entries()).extracting(FatbinEntry::archName).containsExactly("lto_90", "unknown_90");
    }

    @Test
    void honoursTheBufferPositionAndLimit() throws Exception {
        byte[] section = blob(entry(CUBIN, 90, BASE_FLAGS, cubin(90)));
        byte[] framed = concat(new byte[] {1, 2, 3}, section, new byte[] {(byte) 0xff, (byte) 0xff});
        ByteBuffer buffer = ByteBuffer.wrap(framed).order(ByteOrder.BIG_ENDIAN);
        buffer.position(3).limit(3 + section.length);

        CudaFatbin fatbin = CudaFatbin.parse(buffer);

        assertThat(fatbin.entries()).extracting(FatbinEntry::archName).containsExactly("sm_90");
        assertThat(fatbin.entries().get(0).offset()).isEqualTo(0x10);
        assertThat(buffer.position()).isEqualTo(3);
        assertThat(buffer.order()).isEqualTo(ByteOrder.BIG_ENDIAN);
    }

    @Test
    void rejectsABadMagicNumber() {
        byte[] section = concat(
                blob(entry(CUBIN, 90, BASE_FLAGS, cubin(90))), blob(entry(CUBIN, 80, BASE_FLAGS, cubin(80))));
        int second = section.length / 2;
        section[second] = 0x51;

        assertThatThrownBy(() -> CudaFatbin.parse(buffer(section)))
                .isInstanceOf(FatbinFormatException.class)
                .hasMessageContaining("bad fat binary magic 0xba55ed51")
                .hasMessageContaining("offset 0x" + Integer.toHexString(second));
    }

    @Test
    void rejectsAnUnknownVersion() {
        byte[] section = blob(entry(CUBIN, 90, BASE_FLAGS, cubin(90)));
        section[4] = 2;

        assertThatThrownBy(() -> CudaFatbin.parse(buffer(section)))
                .isInstanceOf(FatbinFormatException.class)
                .hasMessageContaining("unsupported fat binary version 2");
    }

    @Test
    void rejectsATruncatedBlobHeader() {
        byte[] section = Arrays.copyOf(blob(entry(CUBIN, 90, BASE_FLAGS, cubin(90))), 12);

        assertThatThrownBy(() -> CudaFatbin.parse(buffer(section)))
                .isInstanceOf(FatbinFormatException.class)
                .hasMessageContaining("truncated fat binary header at offset 0x0");
    }

    @Test
    void rejectsABlobLongerThanTheSection() {
        byte[] whole = blob(entry(CUBIN, 90, BASE_FLAGS, cubin(90)));
        byte[] section = Arrays.copyOf(whole, whole.length - 8);

        assertThatThrownBy(() -> CudaFatbin.parse(buffer(section)))
                .isInstanceOf(FatbinFormatException.class)
                .hasMessageContaining("claims " + (whole.length - 16) + " bytes of entries");
    }

    @Test
    void rejectsAnEntryPayloadPastTheEndOfItsBlob() {
        byte[] section = blob(entry(CUBIN, 90, BASE_FLAGS, cubin(90)));
        buffer(section).putLong(0x10 + 8, 0x7fff_ffffL);

        assertThatThrownBy(() -> CudaFatbin.parse(buffer(section)))
                .isInstanceOf(FatbinFormatException.class)
                .hasMessageContaining("entry at offset 0x10 has a payload of 2147483647 bytes")
                .hasMessageContaining("extends past the end of its blob");
    }

    @Test
    void rejectsAnEntryPayloadSizeAboveTheSignedRange() {
        byte[] section = blob(entry(CUBIN, 90, BASE_FLAGS, cubin(90)));
        buffer(section).putLong(0x10 + 8, -8L);

        assertThatThrownBy(() -> CudaFatbin.parse(buffer(section)))
                .isInstanceOf(FatbinFormatException.class)
                .hasMessageContaining("payload of 18446744073709551608 bytes");
    }

    @Test
    void rejectsEntryHeaderSizesTooSmallOrPastTheBlob() {
        byte[] tooSmall = blob(entry(CUBIN, 90, BASE_FLAGS, cubin(90)));
        buffer(tooSmall).putInt(0x10 + 4, 0x10);
        byte[] tooLarge = blob(entry(CUBIN, 90, BASE_FLAGS, cubin(90)));
        buffer(tooLarge).putInt(0x10 + 4, 0x1000);

        assertThatThrownBy(() -> CudaFatbin.parse(buffer(tooSmall)))
                .isInstanceOf(FatbinFormatException.class).hasMessageContaining("header size 16");
        assertThatThrownBy(() -> CudaFatbin.parse(buffer(tooLarge)))
                .isInstanceOf(FatbinFormatException.class).hasMessageContaining("header size 4096");
    }

    @Test
    void rejectsATruncatedEntryHeader() {
        byte[] section = blob(new byte[0x20]);
        section[0x10] = CUBIN;

        assertThatThrownBy(() -> CudaFatbin.parse(buffer(section)))
                .isInstanceOf(FatbinFormatException.class)
                .hasMessageContaining("truncated fat binary entry header at offset 0x10");
    }

    @Test
    void rejectsAnImplausibleSmNumber() {
        byte[] zero = blob(entry(CUBIN, 0, BASE_FLAGS, cubin(90)));
        byte[] huge = blob(entry(CUBIN, -1, BASE_FLAGS, cubin(90)));

        assertThatThrownBy(() -> CudaFatbin.parse(buffer(zero)))
                .isInstanceOf(FatbinFormatException.class).hasMessageContaining("implausible SM number 0");
        assertThatThrownBy(() -> CudaFatbin.parse(buffer(huge)))
                .isInstanceOf(FatbinFormatException.class).hasMessageContaining("implausible SM number 4294967295");
    }

    /** Random corruption and truncation may only ever give a result or a FatbinFormatException. */
    @Test
    void corruptionNeverEscapesAsAnUncheckedException() throws IOException {
        byte[] valid = concat(
                blob(entry(CUBIN, 90, BASE_FLAGS, cubin(90)), entry(PTX, 90, BASE_FLAGS | ZSTD, PTX_TEXT, 0x50)),
                blob(entry(CUBIN, 100, BASE_FLAGS | F, cubin(100), 0x60)));
        Random random = new Random(42);
        for (int i = 0; i < 20_000; i++) {
            byte[] mutated = Arrays.copyOf(valid, i % 3 == 0 ? random.nextInt(valid.length + 1) : valid.length);
            int flips = 1 + random.nextInt(4);
            for (int f = 0; f < flips && mutated.length > 0; f++) {
                // half of the time near the start, where the blob and first entry headers are
                int at = random.nextInt(i % 2 == 0 ? Math.min(mutated.length, 0x120) : mutated.length);
                mutated[at] = (byte) random.nextInt(256);
            }
            try {
                CudaFatbin.parse(buffer(mutated));
            } catch (FatbinFormatException expected) {
                assertThat(expected.getMessage()).isNotBlank();
            } catch (RuntimeException e) {
                fail("iteration " + i + " threw " + e + " for " + Arrays.toString(mutated), e);
            }
        }
    }
}
