package io.shardingjob.boot.autoconfigure;

import io.shardingjob.core.instance.InstanceId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.cloud.CloudPlatform;
import org.springframework.core.env.Environment;

/**
 * This instance's id when {@code sharding.instance-id} is not set. On Kubernetes (as Boot detects it, from the service
 * variables every pod gets, or as {@code spring.main.cloud-platform} says) it is the pod's name, which Kubernetes gives
 * the container as {@code HOSTNAME}: an operator reads it in {@code kubectl get pods}, and a container restarted in its
 * pod comes back under the same id, so a sticky strategy gives it its items back. Elsewhere it is {@code
 * host@-@pid}. A pod on the host's network has the node's name as its {@code HOSTNAME}, shared by every such pod on the
 * node: those set {@code sharding.instance-id} from the downward API ({@code metadata.name}).
 */
final class DefaultInstanceId {

    private static final Logger log = LoggerFactory.getLogger(DefaultInstanceId.class);

    /** The variable in which Kubernetes gives a container its pod's name. */
    static final String POD_NAME = "HOSTNAME";

    private DefaultInstanceId() {}

    static String of(Environment environment) {
        if (CloudPlatform.getActive(environment) == CloudPlatform.KUBERNETES) {
            String pod = environment.getProperty(POD_NAME);
            if (pod != null && !pod.isBlank()) {
                try {
                    return InstanceId.validate(pod.trim());
                } catch (IllegalArgumentException ex) {
                    log.warn(
                            "{} '{}' is no instance id ({}); using host@-@pid. Set sharding.instance-id",
                            POD_NAME,
                            pod,
                            ex.getMessage());
                }
            }
        }
        return InstanceId.ofThisProcess();
    }
}
