/**
 * What every stage of a job's scheduling shares: the job as it reads it ({@link
 * io.shardingjob.core.internal.scheduling.job.JobView}), a way to ask for an audit ({@link
 * io.shardingjob.core.internal.scheduling.job.AuditDemand}), the job's coordination loop, and this instance's memory of
 * its runs ({@link io.shardingjob.core.internal.scheduling.job.RunMemory}, whose parts are this package's own). Depends on no
 * stage.
 */
@NullMarked
package io.shardingjob.core.internal.scheduling.job;

import org.jspecify.annotations.NullMarked;
