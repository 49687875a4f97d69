package io.shardingjob.core.instance;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.regex.Pattern;

/**
 * Instance ids name a running process in the registry. The default, {@code host@-@pid}, is stable for the life of the
 * process; containers that reuse addresses and pids should set their own (the pod name, for example).
 */
public final class InstanceId {

    private static final Pattern VALID = Pattern.compile("[A-Za-z0-9._:@\\-]+");

    private InstanceId() {}

    /** {@code host@-@pid}, the host being this machine's address. */
    public static String ofThisProcess() {
        return host() + "@-@" + ProcessHandle.current().pid();
    }

    /**
     * Checks an id given by the user.
     *
     * @throws IllegalArgumentException when the id could not be a ZooKeeper node name
     */
    public static String validate(String instanceId) {
        if (instanceId == null || !VALID.matcher(instanceId).matches()) {
            throw new IllegalArgumentException("Invalid instance id '" + instanceId
                    + "' (sharding.instance-id): use letters, digits and the characters . _ : @ -");
        }
        return instanceId;
    }

    private static String host() {
        try {
            String address = InetAddress.getLocalHost().getHostAddress();
            int scope = address.indexOf('%');
            return scope < 0 ? address : address.substring(0, scope);
        } catch (UnknownHostException ex) {
            return "127.0.0.1";
        }
    }
}
