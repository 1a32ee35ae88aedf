package org.archpool.orchestrator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ProcessTextTest {

    /** NUL-separated, as /proc holds them. */
    private static byte[] entries(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
            out.write(0);
        }
        return out.toByteArray();
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static final byte[] LATIN1_E = {'c', 'a', 'f', (byte) 0xe9};

    private final byte[] jvm = entries(utf8("/usr/bin/java"), utf8("-Xms16m"), utf8("-cp"), LATIN1_E,
            utf8("org.archpool.orchestrator.cli.Main"));

    @Test
    void validUtf8AndARealReplacementCharacterPass() {
        byte[] cmdline = entries(utf8("java"), utf8("Main"), utf8("build"), utf8("größe/мир/😀/\ufffd.json"));
        byte[] environ = entries(utf8("PATH=/usr/bin"), utf8("NAME=Zoë \ufffd"));
        assertThat(ProcessText.problem(cmdline, environ, 2, true)).isEmpty();
    }

    @Test
    void anArgumentThatIsNotUtf8IsNamedWithItsBytes() {
        byte[] cmdline = entries(utf8("java"), utf8("Main"), utf8("build"), LATIN1_E);
        assertThat(ProcessText.problem(cmdline, entries(), 2, true)).hasValueSatisfying(m -> assertThat(m)
                .startsWith("argument 2 of archpool, \"caf\\xe9\", is not valid UTF-8"));
    }

    @Test
    void onlyArchpoolsOwnArgumentsCountNotTheJvms() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        bytes.writeBytes(jvm);
        bytes.writeBytes(entries(utf8("build")));
        byte[] cmdline = bytes.toByteArray();
        assertThat(ProcessText.problem(cmdline, entries(), 1, true)).isEmpty();
    }

    @Test
    void anEnvironmentVariableThatIsNotUtf8IsNamedAsTheUserKnowsIt() {
        // bin/archpool recorded the user's LANG, whose value is Latin-1
        byte[] lang = utf8("ARCHPOOL_USER_LOCALE_LANG=x?");
        lang[lang.length - 1] = (byte) 0xff;
        byte[] environ = entries(utf8("PATH=/usr/bin"), lang);
        assertThat(ProcessText.problem(entries(utf8("java")), environ, 0, true)).hasValueSatisfying(m ->
                assertThat(m).startsWith("the environment variable \"LANG\" (which every job inherits) holds")
                        .contains("\\xff"));
    }

    @Test
    void withoutAUtf8JvmAnyNonAsciiByteIsRefused() {
        byte[] cmdline = entries(utf8("java"), utf8("Main"), utf8("build"), utf8("größe.json"));
        assertThat(ProcessText.problem(cmdline, entries(), 2, false)).hasValueSatisfying(m -> assertThat(m)
                .contains("is not ASCII, and this system has no C.UTF-8 locale"));
        assertThat(ProcessText.problem(entries(utf8("java"), utf8("build")), entries(utf8("A=b")), 1, false))
                .isEmpty();
    }
}
