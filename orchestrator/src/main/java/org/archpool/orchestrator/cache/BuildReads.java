package org.archpool.orchestrator.cache;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import org.archpool.orchestrator.tool.ToolRunner;
import org.archpool.protocol.CmakeJob;

/**
 * The files a {@code cmake} job's build read that its key does not cover, from the records of the generator that
 * wrote its build folder: {@code build.ninja} is Ninja's ({@link NinjaReads}), a {@code Makefile} CMake's Unix
 * Makefiles' ({@link MakefileReads}). Of the files they name, every one outside the job's {@code sourceDir} (whose
 * files the key holds) and outside its build folder (what the build wrote) is kept, system headers and CMake's own
 * modules included. A build folder with neither, and records that cannot be read, leave what the build read
 * unknown, with the reason: such a job is not stored, since a hit that could be wrong is worse than none.
 */
public sealed interface BuildReads permits NinjaReads, MakefileReads {

    /** What the build read outside the key's files, or why that is not known. */
    sealed interface Found {
        /**
         * @param paths          absolute, normalized and sorted; the files themselves, not folders
         * @param includeFolders the folders the compiles searched for headers, in order ({@link IncludeFolders})
         */
        record Files(SortedSet<Path> paths, List<Path> includeFolders) implements Found {
            public Files {
                paths = Collections.unmodifiableSortedSet(new TreeSet<>(paths));
                includeFolders = List.copyOf(includeFolders);
            }
        }

        record Unknown(String reason) implements Found {
        }
    }

    /** What {@code job}'s last build read outside its source and build folders. */
    Found collect(CmakeJob job);

    /**
     * The collector for {@code job}'s build folder as it is now: Ninja's when it holds {@code build.ninja}, else
     * the Makefile generator's when it holds a {@code Makefile}, else none ({@code null}).
     *
     * @param tools runs {@code ninja -t deps} for Ninja's
     */
    static BuildReads of(CmakeJob job, ToolRunner tools) {
        Path buildDir = buildDir(job);
        if (Files.isRegularFile(buildDir.resolve("build.ninja"))) {
            return new NinjaReads(tools);
        }
        if (Files.isRegularFile(buildDir.resolve("Makefile"))) {
            return new MakefileReads();
        }
        return null;
    }

    /** What {@code job}'s last build read, by the collector its build folder calls for ({@link #of}). */
    static Found collect(CmakeJob job, ToolRunner tools) {
        BuildReads reads = of(job, tools);
        if (reads == null) {
            return new Found.Unknown("what the build read outside its source folder is known only from the records"
                    + " of Ninja (build.ninja) or of Unix Makefiles (Makefile), and its build folder has neither"
                    + " (generator " + job.generator() + ")");
        }
        return reads.collect(job);
    }

    /** {@code job}'s build folder, absolute and normalized. */
    static Path buildDir(CmakeJob job) {
        return Path.of(job.buildDir()).toAbsolutePath().normalize();
    }

    /**
     * Of {@code named}, the files under none of {@code folders} (each also as its real path, since a compiler may
     * name a file either way), folders left out.
     */
    static SortedSet<Path> outside(Set<Path> named, List<Path> folders) {
        List<Path> covered = new ArrayList<>();
        for (Path folder : folders) {
            Path absolute = folder.toAbsolutePath().normalize();
            covered.add(absolute);
            try {
                covered.add(absolute.toRealPath());
            } catch (IOException e) {
                // a folder that is gone has no other name to leave out
            }
        }
        SortedSet<Path> kept = new TreeSet<>();
        for (Path path : named) {
            if (covered.stream().noneMatch(path::startsWith) && !Files.isDirectory(path)) {
                kept.add(path);
            }
        }
        return kept;
    }
}
