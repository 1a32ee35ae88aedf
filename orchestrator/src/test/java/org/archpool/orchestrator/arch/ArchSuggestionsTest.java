package org.archpool.orchestrator.arch;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ArchSuggestionsTest {

    @Test
    void measuresEditDistanceWithSwaps() {
        assertThat(ArchSuggestions.distance("gfx942", "gfx942")).isZero();
        assertThat(ArchSuggestions.distance("gfx942a", "gfx942")).isEqualTo(1);
        assertThat(ArchSuggestions.distance("gfx94", "gfx942")).isEqualTo(1);
        assertThat(ArchSuggestions.distance("gfx924", "gfx942")).isEqualTo(1);
        assertThat(ArchSuggestions.distance("gfx9420", "gfx942")).isEqualTo(1);
        assertThat(ArchSuggestions.distance("gfx", "gfx942")).isEqualTo(3);
        assertThat(ArchSuggestions.distance("", "abc")).isEqualTo(3);
        assertThat(ArchSuggestions.distance("abc", "")).isEqualTo(3);
    }

    @Test
    void ranksByDistanceThenTierThenSharedPrefix() {
        List<ArchSuggestions.Candidate> candidates = List.of(new ArchSuggestions.Candidate("gfx940", 3),
                new ArchSuggestions.Candidate("gfx904", 2), new ArchSuggestions.Candidate("gfx942", 0),
                new ArchSuggestions.Candidate("gfx1100", 0));
        assertThat(ArchSuggestions.nearest("gfx94", candidates)).containsExactly("gfx942", "gfx904", "gfx940");
        assertThat(ArchSuggestions.nearest("zzzzzz", candidates)).isEmpty();
    }

    @Test
    void offersAtMostThree() {
        List<ArchSuggestions.Candidate> many = List.of(new ArchSuggestions.Candidate("a1", 0),
                new ArchSuggestions.Candidate("a2", 0), new ArchSuggestions.Candidate("a3", 0),
                new ArchSuggestions.Candidate("a4", 0));
        assertThat(ArchSuggestions.nearest("a", many)).hasSize(3);
        assertThat(ArchSuggestions.merge(List.of("x", "y"), List.of("y", "z", "w"))).containsExactly("x", "y", "z");
    }

    @Test
    void phrasesTheQuestion() {
        assertThat(ArchSuggestions.didYouMean(List.of())).isEmpty();
        assertThat(ArchSuggestions.didYouMean(List.of("a"))).isEqualTo(" Did you mean a?");
        assertThat(ArchSuggestions.didYouMean(List.of("a", "b"))).isEqualTo(" Did you mean a or b?");
        assertThat(ArchSuggestions.didYouMean(List.of("a", "b", "c"))).isEqualTo(" Did you mean a, b or c?");
    }
}
