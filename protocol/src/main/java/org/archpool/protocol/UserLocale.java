package org.archpool.protocol;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * archpool's JVMs run under a UTF-8 locale; jobs run under the user's. A JVM decodes its arguments, environment
 * and file names with the charset of its locale's {@code LC_CTYPE} (under {@code LC_ALL=C} every non-ASCII byte
 * becomes {@code ?}, silently), so the coordinator ({@code bin/archpool}) and every worker JVM start with
 * {@value #JVM_LOCALE} and no other locale variable, and carry the user's own locale variables along under
 * other names. Every process of a job gets them back, exactly as the user had them: set ones with their values,
 * unset ones unset.
 *
 * <p>The locale variables are {@code LANG} and every {@code LC_*} ({@code LC_ALL}, {@code LC_CTYPE},
 * {@code LC_MESSAGES}…); {@code LANGUAGE} is left as it is, since it decodes nothing. The user's are carried
 * as {@value #SAVED_PREFIX}{@code <name>}, with {@value #RECORDED}{@code =1} saying that they were recorded
 * (then an absent saved variable means the user had it unset). An environment without that marker (a test,
 * an IDE) has its own locale variables taken as the user's.
 */
public final class UserLocale {

    /** Set to {@code 1} when the user's locale variables were recorded. */
    public static final String RECORDED = "ARCHPOOL_USER_LOCALE";
    /** The prefix of each recorded variable. */
    public static final String SAVED_PREFIX = RECORDED + "_";
    /** The locale archpool's JVMs run under: built into glibc since 2.35, and in Debian's for much longer. */
    public static final String JVM_LOCALE = "C.UTF-8";

    private UserLocale() {
    }

    /** {@code LANG} or any {@code LC_*}. */
    public static boolean isLocaleVariable(String name) {
        return name.equals("LANG") || name.startsWith("LC_");
    }

    /** The user's locale variables, as recorded in {@code env}, else {@code env}'s own; sorted by name. */
    public static Map<String, String> of(Map<String, String> env) {
        Map<String, String> user = new TreeMap<>();
        boolean recorded = env.containsKey(RECORDED);
        env.forEach((name, value) -> {
            if (recorded && name.startsWith(SAVED_PREFIX)) {
                user.put(name.substring(SAVED_PREFIX.length()), value);
            } else if (!recorded && isLocaleVariable(name)) {
                user.put(name, value);
            }
        });
        return user;
    }

    /**
     * {@code env} for one of archpool's JVMs: every locale variable replaced by {@code LC_ALL=}{@value #JVM_LOCALE},
     * the user's recorded.
     */
    public static Map<String, String> forJvm(Map<String, String> env) {
        Map<String, String> jvm = withoutLocale(env);
        of(env).forEach((name, value) -> jvm.put(SAVED_PREFIX + name, value));
        jvm.put(RECORDED, "1");
        jvm.put("LC_ALL", JVM_LOCALE);
        return jvm;
    }

    /** {@code env} (a JVM's) for a job's process: the JVM's locale and the records gone, the user's locale back. */
    public static Map<String, String> forJob(Map<String, String> env) {
        Map<String, String> job = withoutLocale(env);
        job.putAll(of(env));
        return job;
    }

    /** The name a variable had for the user: {@code LANG} for {@code ARCHPOOL_USER_LOCALE_LANG}. */
    public static String userName(String name) {
        return name.startsWith(SAVED_PREFIX) ? name.substring(SAVED_PREFIX.length()) : name;
    }

    private static Map<String, String> withoutLocale(Map<String, String> env) {
        Map<String, String> rest = new LinkedHashMap<>();
        env.forEach((name, value) -> {
            if (!isLocaleVariable(name) && !name.equals(RECORDED) && !name.startsWith(SAVED_PREFIX)) {
                rest.put(name, value);
            }
        });
        return rest;
    }
}
