package org.archpool.orchestrator.arch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ArchTextTest {

    @Test
    void splitsOnAsciiSeparatorsOnly() throws Exception {
        assertThat(ArchText.tokens(" a,b;c\td\ne\r\nf ,, ;")).containsExactly("a", "b", "c", "d", "e", "f");
        assertThat(ArchText.tokens("")).isEmpty();
        assertThat(ArchText.tokens(",; \t")).isEmpty();
        assertThatThrownBy(() -> ArchText.tokens("a\u00a0b")).isInstanceOf(ArchSyntaxException.class);
        assertThatThrownBy(() -> ArchText.tokens("a\u000bb")).isInstanceOf(ArchSyntaxException.class);
        assertThatThrownBy(() -> ArchText.tokens("a\fb")).isInstanceOf(ArchSyntaxException.class);
    }

    @Test
    void limitsTheListBeforeSplittingIt() throws Exception {
        assertThat(ArchText.tokens("9".repeat(64) + ",".repeat(4096 - 64))).hasSize(1);
        assertThatThrownBy(() -> ArchText.tokens(",".repeat(4097))).isInstanceOf(ArchSyntaxException.class)
                .hasMessageContaining("4097 characters long");
    }

    @Test
    void limitsEachEntry() throws Exception {
        assertThat(ArchText.tokens("a".repeat(64))).hasSize(1);
        assertThatThrownBy(() -> ArchText.tokens("a".repeat(65))).isInstanceOf(ArchSyntaxException.class)
                .hasMessageContaining("65 characters long");
    }

    @Test
    void acceptsTheCharactersOfArchitectureNamesOnly() throws Exception {
        assertThat(ArchText.tokens("gfx9-4-generic:sramecc+:xnack- sm_90a 9.0 100f-real"))
                .containsExactly("gfx9-4-generic:sramecc+:xnack-", "sm_90a", "9.0", "100f-real");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(chars = {'!', '"', '#', '$', '%', '&', '\'', '(', ')', '*', '/', '<', '=', '>', '?', '@', '[', '\\',
            ']', '^', '`', '{', '|', '}', '~'})
    void refusesACharacterNoArchitectureNameHasAnywhereInAnEntry(char c) {
        assertThatThrownBy(() -> ArchText.tokens("gfx942" + c)).isInstanceOf(ArchSyntaxException.class)
                .hasMessageContaining("which no architecture name has");
        assertThatThrownBy(() -> ArchText.tokens(c + "gfx942")).isInstanceOf(ArchSyntaxException.class)
                .hasMessageContaining("starts with");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(chars = {'.', ':', '_', '+', '-'})
    void refusesAnEntryThatStartsWithPunctuationNamesOnlyHaveInside(char c) {
        assertThatThrownBy(() -> ArchText.tokens(c + "90")).isInstanceOf(ArchSyntaxException.class)
                .hasMessageContaining("starts with");
    }

    @Test
    void refusesEveryCharacterOutsidePrintableAsciiAndTheSeparators() {
        for (int c = 0; c < 0x3000; c++) {
            boolean allowed = (c > 0x20 && c < 0x7f) || c == ' ' || c == '\t' || c == '\n' || c == '\r';
            if (allowed || Character.isSurrogate((char) c)) {
                continue;
            }
            String text = "gfx942" + (char) c;
            assertThatThrownBy(() -> ArchText.tokens(text)).as("U+%04X", c).isInstanceOf(ArchSyntaxException.class)
                    .hasMessageContaining(String.format("U+%04X", c));
        }
    }

    @Test
    void checksASingleEntry() throws Exception {
        ArchText.requireToken("gfx942:xnack-");
        assertThatThrownBy(() -> ArchText.requireToken("a b")).isInstanceOf(ArchSyntaxException.class)
                .hasMessageContaining("list separator");
        assertThatThrownBy(() -> ArchText.requireToken("")).isInstanceOf(ArchSyntaxException.class);
        assertThatThrownBy(() -> ArchText.requireToken("x".repeat(5000))).isInstanceOf(ArchSyntaxException.class)
                .hasMessageContaining("5000 characters long");
    }
}
