package org.archpool.orchestrator.toolchain;

import static org.archpool.protocol.UntrustedText.quote;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.archpool.orchestrator.arch.JobArchs;
import org.archpool.orchestrator.manifest.JobScope;
import org.archpool.orchestrator.manifest.ManifestException;
import org.archpool.protocol.CmakeJob;
import org.archpool.protocol.JobSpec;
import org.archpool.protocol.Platform;
import org.archpool.protocol.Target;

/**
 * Which (job, target) pairs a run builds. Each job is paired with each target of the run whose platform it allows;
 * a job that lists the architectures it supports is built for their intersection with the target's
 * ({@link JobArchs}), and skipped for a target where that is empty. With several targets, every pair goes by
 * {@code id[platform]} and a CMake job builds in a folder of the platform's: {@code <buildRoot>/<platform>/<id>} by
 * default, {@code <buildDir>/<platform>} when the job names its folder. With one target, jobs keep their ids and
 * folders.
 */
public final class JobTargets {

    /** One job for one target: {@code skipped} is null when it is built, else why not. */
    public record Assignment(TargetedJob unit, String skipped) {
    }

    private JobTargets() {
    }

    /**
     * The pairs, in job order and, per job, in target order.
     *
     * @param scopes   what each job (by id) says about its targets
     * @param targets  the run's targets, one per platform
     * @param builds   for a platform, the concrete architectures {@code all}/{@code all-major} stand for
     * @throws ManifestException when a command job leaves its platform open in a run with several targets, or a job
     *                           that lists its archs meets a target of {@code all}/{@code all-major} that
     *                           {@code builds} cannot expand
     */
    public static List<Assignment> assign(List<? extends JobSpec> jobs, Function<String, JobScope> scopes,
                                          List<Target> targets, Function<Platform, List<String>> builds)
            throws ManifestException {
        boolean several = targets.size() > 1;
        if (several) {
            requirePlatforms(jobs, scopes, targets);
        }
        List<Assignment> out = new ArrayList<>();
        for (JobSpec job : jobs) {
            JobScope scope = scopes.apply(job.id());
            List<Target> allowed = targets.stream().filter(t -> scope.allows(t.platform())).toList();
            if (allowed.isEmpty()) {
                Target first = targets.get(0);
                out.add(new Assignment(new TargetedJob(job, first, several), "it is limited to "
                        + names(scope.platforms().stream().map(Platform::wireName).sorted().toList())
                        + ", and the run builds for " + names(targets.stream().map(t -> t.platform().wireName())
                        .toList())));
                continue;
            }
            for (Target target : allowed) {
                JobSpec placed = several ? inPlatformFolder(job, scope, target.platform()) : job;
                out.add(assign(placed, scope, target, builds, several));
            }
        }
        return out;
    }

    /**
     * One job of a service for the one target it is built for: {@code placed} moves a CMake job's build folder
     * under the platform's (a service of several targets), and the job keeps its id either way (a service's ids are
     * unique already). The caller has checked that the job's platforms allow {@code target}.
     *
     * @throws ManifestException as {@link #assign} does, for a target of {@code all} it cannot expand
     */
    public static Assignment one(JobSpec job, JobScope scope, Target target, Function<Platform, List<String>> builds,
                                 boolean placed) throws ManifestException {
        return assign(placed ? inPlatformFolder(job, scope, target.platform()) : job, scope, target, builds, false);
    }

    private static Assignment assign(JobSpec job, JobScope scope, Target target,
                                     Function<Platform, List<String>> builds, boolean several)
            throws ManifestException {
        if (scope.archs() == null) {
            return new Assignment(new TargetedJob(job, target, several), null);
        }
        String platform = target.platform().wireName();
        JobArchs own = scope.archs().get(target.platform());
        if (own == null) {
            return new Assignment(new TargetedJob(job, target, several), "its archs (" + String.join(", ",
                    scope.listed()) + ") name no " + platform + " architecture, and the run builds " + platform
                    + " for " + target.cmakeList());
        }
        List<String> compiler = builds.apply(target.platform());
        if (compiler.isEmpty() && JobArchs.isWholeSet(target.archs())) {
            throw new ManifestException("job " + quote(job.id()) + " lists the architectures it supports, and the "
                    + platform + " target is " + target.cmakeList() + ", which archpool expands to the architectures"
                    + " nvcc builds (nvcc --list-gpu-code) before it intersects them; that list comes from the"
                    + " compiler check, which was skipped (--no-toolchain-check) or found no nvcc. Fix: drop"
                    + " --no-toolchain-check and put nvcc on the PATH (or in CUDACXX), or name the architectures"
                    + " (--arch 80;90, --target cuda:80,90)");
        }
        JobArchs.Intersection common = own.intersect(target.archs(), compiler);
        if (common.empty()) {
            return new Assignment(new TargetedJob(job, target, several), common.reason());
        }
        return new Assignment(new TargetedJob(job, new Target(target.platform(), common.archs()), several), null);
    }

    /** In a run with several targets, a command job runs one platform's compiler, so it must name that platform. */
    private static void requirePlatforms(List<? extends JobSpec> jobs, Function<String, JobScope> scopes,
                                         List<Target> targets) throws ManifestException {
        List<String> open = new ArrayList<>();
        for (JobSpec job : jobs) {
            if (!(job instanceof CmakeJob)) {
                long platforms = targets.stream().filter(t -> scopes.apply(job.id()).allows(t.platform())).count();
                if (platforms > 1) {
                    open.add(job.id());
                }
            }
        }
        if (open.isEmpty()) {
            return;
        }
        String shown = open.stream().limit(5).map(id -> quote(id)).collect(Collectors.joining(", "))
                + (open.size() > 5 ? " and " + (open.size() - 5) + " more" : "");
        throw new ManifestException("the run builds for " + names(targets.stream().map(t -> t.platform().wireName())
                .toList()) + ", and the command job" + (open.size() > 1 ? "s " : " ") + shown + " could run for "
                + "more than one of them, but a command runs one platform's compiler: give each command job the"
                + " platform its argv is for, \"platforms\": [\"cuda\"] or [\"hip\"] (a CMake job may leave it"
                + " open: it is configured once per platform)");
    }

    /** A CMake job's build folder under {@code platform}'s; other jobs as they are. */
    private static JobSpec inPlatformFolder(JobSpec job, JobScope scope, Platform platform) {
        if (!(job instanceof CmakeJob c)) {
            return job;
        }
        Path dir = Path.of(c.buildDir());
        Path placed = scope.defaultBuildDir() && dir.getParent() != null
                ? dir.getParent().resolve(platform.wireName()).resolve(dir.getFileName())
                : dir.resolve(platform.wireName());
        return new CmakeJob(c.id(), c.sourceDir(), placed.toString(), c.generator(), c.buildType(), c.defines(),
                c.configureArgs(), c.buildArgs(), c.targets(), c.env(), c.timeoutMs(), c.artifacts());
    }

    private static String names(List<String> names) {
        return names.size() == 1 ? names.get(0) : String.join(" and ", names);
    }
}
