package org.archpool.orchestrator.seed;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which projects pick their own toolchain before project(), and so are never seeded. */
class OwnToolchainTest {

    @TempDir
    Path dir;

    private Path project(String before) throws Exception {
        Files.writeString(dir.resolve("CMakeLists.txt"), "cmake_minimum_required(VERSION 3.24)\n" + before
                + "project(p LANGUAGES CXX CUDA)\nset(CMAKE_CXX_COMPILER_LAUNCHER ccache)\ninclude(after.cmake)\n");
        return dir;
    }

    @Test
    void aCompilerToolchainFileSysrootOrIncludeBeforeProjectPicksTheToolchain() throws Exception {
        assertThat(OwnToolchain.chosenIn(project("set(CMAKE_CXX_COMPILER /usr/bin/clang++)\n")))
                .hasValue("its CMakeLists.txt names CMAKE_CXX_COMPILER before project(), which may pick its own"
                        + " toolchain");
        assertThat(OwnToolchain.chosenIn(project("set(CMAKE_TOOLCHAIN_FILE ${CMAKE_CURRENT_SOURCE_DIR}/tc.cmake)\n")))
                .get().asString().contains("CMAKE_TOOLCHAIN_FILE");
        assertThat(OwnToolchain.chosenIn(project("SET(CMAKE_CUDA_HOST_COMPILER g++-12)\n"))).isPresent();
        assertThat(OwnToolchain.chosenIn(project("set(ENV{CXX} clang++)\n"))).isPresent();
        assertThat(OwnToolchain.chosenIn(project("set(CMAKE_SYSROOT /opt/sysroot)\n"))).isPresent();
        assertThat(OwnToolchain.chosenIn(project("include(${CMAKE_CURRENT_SOURCE_DIR}/vcpkg.cmake)\n"))).isPresent();
    }

    @Test
    void settingsThatPickNoToolchainAndWhatComesAfterProjectDoNot() throws Exception {
        assertThat(OwnToolchain.chosenIn(project(""))).isEmpty();
        assertThat(OwnToolchain.chosenIn(project("set(CMAKE_CXX_STANDARD 17)\ncmake_policy(SET CMP0104 NEW)\n")))
                .isEmpty();
        assertThat(OwnToolchain.chosenIn(project("# set(CMAKE_CXX_COMPILER clang++) was tried\n"
                + "#[[ set(CMAKE_TOOLCHAIN_FILE x) ]]\n"))).as("comments").isEmpty();
    }

    @Test
    void aProjectWhoseCMakeListsCannotBeReadIsNotSeeded() {
        assertThat(OwnToolchain.chosenIn(dir.resolve("nowhere"))).get().asString().contains("could not be read");
    }
}
