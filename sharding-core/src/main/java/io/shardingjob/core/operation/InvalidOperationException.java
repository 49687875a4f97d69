package io.shardingjob.core.operation;

/**
 * An operator's input was refused before anything was written: an item outside the job's items, a malformed instance
 * id, a job parameter larger than {@link io.shardingjob.core.config.JobConfiguration#MAX_JOB_PARAMETER_BYTES}, a cron
 * the schedule cannot read. The message names the job, the input and the limit, for the operator; {@link #jobName()}
 * and {@link #input()} say the same to a program (the starter's endpoint and console answer it with {@code 400}).
 * Thrown by the operations of {@code JobCoordinator} and {@code JobDefinitions}, which check their inputs before they
 * write anything.
 */
public final class InvalidOperationException extends IllegalArgumentException {

    private final String jobName;
    private final String input;
    private final String problem;

    /**
     * @param input the refused input, named as the operations name it ({@code item}, {@code instanceId},
     *     {@code jobParameter}, {@code cron}, {@code shardingTotalCount}, {@code shardingItemParameters}, ...)
     * @param problem what is wrong with it and the limit it broke
     */
    public InvalidOperationException(String jobName, String input, String problem) {
        super("Job '" + abbreviated(jobName) + "': invalid " + input + ": " + problem);
        this.jobName = jobName;
        this.input = input;
        this.problem = problem;
    }

    /**
     * The text as a message quotes it: whole up to 64 characters, else its start and how long it is, so that a refused
     * input of megabytes does not make a message (a log line, an HTTP answer) of megabytes.
     */
    private static String abbreviated(String text) {
        return text.length() <= 64 ? text : text.substring(0, 48) + "... (" + text.length() + " characters)";
    }

    public String jobName() {
        return jobName;
    }

    /** The refused input, e.g. {@code jobParameter}. */
    public String input() {
        return input;
    }

    /** What is wrong with the input and the limit it broke, without the job and the input's name. */
    public String problem() {
        return problem;
    }
}
