package org.archpool.worker.inspect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.OptionalInt;

import org.archpool.worker.inspect.FatbinEntry.Kind;
import org.archpool.worker.inspect.FatbinEntry.Variant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class FatbinEntryTest {

    @ParameterizedTest
    @CsvSource({
        "CUBIN,  90,  NONE, sm_90",
        "CUBIN,  90,  A,    sm_90a",
        "CUBIN,  100, F,    sm_100f",
        "CUBIN,  75,  NONE, sm_75",
        "PTX,    90,  NONE, compute_90",
        "PTX,    90,  A,    compute_90a",
        "PTX,    100, F,    compute_100f",
        "LTO_IR, 90,  NONE, lto_90",
        "UNKNOWN, 90, NONE, unknown_90",
    })
    void archNameFollowsNvccNaming(Kind kind, int sm, Variant variant, String expected) {
        FatbinEntry entry = new FatbinEntry(kind, sm, variant, false, OptionalInt.empty(), OptionalInt.empty(), 0, 0);

        assertThat(entry.archName()).isEqualTo(expected);
    }

    @Test
    void smMismatchComparesTheCubinHeaderWithTheEntryHeader() {
        assertThat(entry(OptionalInt.of(90)).smMismatch()).isFalse();
        assertThat(entry(OptionalInt.of(89)).smMismatch()).isTrue();
        assertThat(entry(OptionalInt.empty()).smMismatch()).isFalse();
    }

    @Test
    void onlyACubinKnownToHaveNoCodeSectionIsEmpty() {
        OptionalInt none = OptionalInt.empty();
        assertThat(new FatbinEntry(Kind.CUBIN, 90, Variant.NONE, false, none, OptionalInt.of(0), 0, 0).isEmptyCubin())
                .isTrue();
        assertThat(new FatbinEntry(Kind.CUBIN, 90, Variant.NONE, false, none, OptionalInt.of(3), 0, 0).isEmptyCubin())
                .isFalse();
        assertThat(new FatbinEntry(Kind.CUBIN, 90, Variant.NONE, true, none, none, 0, 0).isEmptyCubin()).isFalse();
        assertThat(new FatbinEntry(Kind.PTX, 90, Variant.NONE, true, none, OptionalInt.of(0), 0, 0).isEmptyCubin())
                .isFalse();
    }

    @ParameterizedTest(name = "code {0} is {1}")
    @CsvSource({"1, PTX", "2, CUBIN", "8, LTO_IR", "4, UNKNOWN", "-1, UNKNOWN"})
    void kindsMapFromTheirCodes(int code, Kind kind) {
        assertThat(Kind.ofCode(code)).isEqualTo(kind);
    }

    @Test
    void rejectsImpossibleValues() {
        OptionalInt none = OptionalInt.empty();
        assertThatThrownBy(() -> new FatbinEntry(Kind.CUBIN, 0, Variant.NONE, false, none, none, 0, 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new FatbinEntry(Kind.CUBIN, 90, Variant.NONE, false, none, none, -1, 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new FatbinEntry(null, 90, Variant.NONE, false, none, none, 0, 0))
                .isInstanceOf(NullPointerException.class);
    }

    private static FatbinEntry entry(OptionalInt cubinSm) {
        return new FatbinEntry(Kind.CUBIN, 90, Variant.NONE, false, cubinSm, OptionalInt.of(1), 0, 0x10);
    }
}
