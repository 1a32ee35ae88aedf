package org.archpool.orchestrator;

import static com.tngtech.archunit.base.DescribedPredicate.describe;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The boundaries the layout promises (docs/architecture.md), over the compiled classes of all three modules: each
 * rule fails, naming the offending class and dependency, when a change crosses one.
 */
class ArchitectureTest {

    private static JavaClasses classes;

    /** Main classes only, whether the modules come as folders ({@code mvn test}) or jars ({@code mvn verify}). */
    private static final ImportOption MAIN_CLASSES = location -> !location.contains("/test-classes/")
            && !location.matches(Pattern.compile(".*-tests\\.jar.*"));

    @BeforeAll
    static void importMainClasses() {
        classes = new ClassFileImporter().withImportOption(MAIN_CLASSES).importPackages("org.archpool");
    }

    @Test
    void everyModuleIsImported() {
        // otherwise every rule below would pass for want of classes
        assertThat(classes.contain("org.archpool.protocol.BuildRequest")).isTrue();
        assertThat(classes.contain("org.archpool.worker.WorkerMain")).isTrue();
        assertThat(classes.contain("org.archpool.orchestrator.schedule.Scheduler")).isTrue();
        assertThat(classes.contain("org.archpool.orchestrator.service.JobService")).isTrue();
        assertThat(classes.contain("org.archpool.orchestrator.ArchitectureTest")).as("no test classes").isFalse();
    }

    @Test
    void theWorkerNeverUsesTheCoordinator() {
        check(noClasses().that().resideInAPackage("org.archpool.worker..")
                .should().dependOnClassesThat().resideInAPackage("org.archpool.orchestrator..")
                .because("workers never probe: detection, resolution and planning live in the coordinator"));
    }

    /** What would be behaviour in the wire module: files, processes, threads, clocks, the network, the other modules. */
    private static final Set<String> BEHAVIOUR_TYPES = Set.of("java.lang.Process", "java.lang.ProcessBuilder",
            "java.lang.ProcessHandle", "java.lang.Runtime", "java.lang.Thread", "java.time.Clock", "java.io.File");

    @Test
    void theProtocolHoldsRecordsAndTheirCodecOnly() {
        check(noClasses().that().resideInAPackage("org.archpool.protocol..")
                .should().dependOnClassesThat().resideInAnyPackage("java.nio.file..", "java.net..",
                        "java.util.concurrent..", "org.archpool.worker..", "org.archpool.orchestrator..")
                .orShould().dependOnClassesThat(describe("run processes, threads or clocks, or touch files",
                        (JavaClass c) -> BEHAVIOUR_TYPES.contains(c.getName())))
                .because("the protocol is the wire contract: records that validate themselves and the codec;"
                        + " reading manifests and running anything belong to the coordinator and the worker"));
    }

    @Test
    void thePoolKnowsNothingOfArchitectures() {
        check(noClasses().that().resideInAPackage("org.archpool.orchestrator.pool..")
                .should().dependOnClassesThat().resideInAPackage("org.archpool.orchestrator.arch..")
                .because("a worker pool starts and replaces workers; what they build for travels in each request"));
    }

    @Test
    void architectureResolutionKnowsNothingOfThePool() {
        check(noClasses().that().resideInAPackage("org.archpool.orchestrator.arch..")
                .should().dependOnClassesThat().resideInAPackage("org.archpool.orchestrator.pool..")
                .because("the target is resolved once, before and apart from any worker"));
    }

    @Test
    void theSchedulerKnowsNothingOfTheCommandLine() {
        check(noClasses().that().resideInAPackage("org.archpool.orchestrator.schedule..")
                .should().dependOnClassesThat().resideInAPackage("org.archpool.orchestrator.cli..")
                .because("the scheduler is the core API (submit → future) that the build command and a service share"));
    }

    @Test
    void theServiceKnowsNothingOfTheCommandLine() {
        check(noClasses().that().resideInAPackage("org.archpool.orchestrator.service..")
                .should().dependOnClassesThat().resideInAnyPackage("org.archpool.orchestrator.cli..",
                        "org.archpool.orchestrator.arch..", "org.archpool.orchestrator.report..")
                .because("the service turns client messages into scheduled jobs and results; flags, resolution and"
                        + " report files are the session's, which it is handed"));
    }

    @Test
    void theSchedulerKnowsNothingOfTheService() {
        check(noClasses().that().resideInAPackage("org.archpool.orchestrator.schedule..")
                .should().dependOnClassesThat().resideInAPackage("org.archpool.orchestrator.service..")
                .because("the scheduler is the core API that build and serve share"));
    }

    @Test
    void theCacheKnowsNothingOfSchedulingPoolsReportsOrTheCommandLine() {
        check(noClasses().that().resideInAPackage("org.archpool.orchestrator.cache..")
                .should().dependOnClassesThat().resideInAnyPackage("org.archpool.orchestrator.cli..",
                        "org.archpool.orchestrator.schedule..", "org.archpool.orchestrator.pool..",
                        "org.archpool.orchestrator.report..", "org.archpool.orchestrator.service..")
                .because("the cache keys, stores and restores one job; when a job is looked up, and what is reported,"
                        + " are the scheduler's and the session's"));
    }

    @Test
    void configureSeedingKnowsOnlyTheToolchainAndTheCacheKeysVariables() {
        check(noClasses().that().resideInAPackage("org.archpool.orchestrator.seed..")
                .should().dependOnClassesThat().resideInAnyPackage("org.archpool.orchestrator.cli..",
                        "org.archpool.orchestrator.schedule..", "org.archpool.orchestrator.pool..",
                        "org.archpool.orchestrator.report..", "org.archpool.orchestrator.service..",
                        "org.archpool.orchestrator.arch..", "org.archpool.orchestrator.verify..")
                .because("a seed is taken from and planted into one build tree; when that happens is the"
                        + " scheduler's"));
    }

    @Test
    void noTwoPackagesUseEachOther() {
        check(slices().matching("org.archpool.(**)").should().beFreeOfCycles()
                .because("dependencies between packages go one way"));
    }

    private static void check(ArchRule rule) {
        rule.check(classes);
    }
}
