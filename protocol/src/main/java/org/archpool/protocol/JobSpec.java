package org.archpool.protocol;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * One unit of work, fully resolved: absolute paths, defaults applied. This is what a {@code build} request
 * carries; the manifest reader produces it from the user's file.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, include = JsonTypeInfo.As.PROPERTY, property = "kind")
@JsonSubTypes({
    @JsonSubTypes.Type(value = CmakeJob.class, name = "cmake"),
    @JsonSubTypes.Type(value = CommandJob.class, name = "command")
})
public sealed interface JobSpec permits CmakeJob, CommandJob {

    /** Job ids: 1 to 128 characters of {@code [A-Za-z0-9._-]}. */
    Pattern ID_PATTERN = Pattern.compile("[A-Za-z0-9._-]{1,128}");

    String id();

    /** Extra environment for every process of the job (never the device-visibility variables). */
    Map<String, String> env();

    /** The job's own time limit in milliseconds, or null for the coordinator's default. */
    Long timeoutMs();

    /** Globs, relative to the job's output folder, of the files to inspect after a successful build. */
    List<String> artifacts();

    /** The wire name of the kind: {@code cmake} or {@code command}. */
    String kind();

    /** The same job under the id {@code newId} (checked as any id). */
    JobSpec withId(String newId);

    /** Checks an id against {@link #ID_PATTERN}; {@code .} and {@code ..} are refused (they name folders). */
    static boolean isValidId(String id) {
        return id != null && ID_PATTERN.matcher(id).matches() && !id.equals(".") && !id.equals("..");
    }

    static void requireValidId(String id) {
        if (!isValidId(id)) {
            throw new IllegalArgumentException("job id '" + id + "' is not valid: use 1 to 128 of A-Z a-z 0-9 . _ -"
                    + " (not . or ..)");
        }
    }
}
