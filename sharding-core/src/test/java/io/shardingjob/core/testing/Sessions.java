package io.shardingjob.core.testing;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/** Faults of a client's session, made by the server as a real fault would. */
public final class Sessions {

    private Sessions() {}

    /**
     * Makes the server end the client's session at once, as a partition longer than the session timeout would: a
     * second connection with the same session id and password is opened and closed. The client learns of it as of any
     * expiry, and makes a new session.
     *
     * @param connectString the server or ensemble the client is connected to
     */
    public static void expire(CuratorFramework client, String connectString) throws Exception {
        ZooKeeper zooKeeper = client.getZookeeperClient().getZooKeeper();
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper twin = new ZooKeeper(
                connectString,
                zooKeeper.getSessionTimeout(),
                event -> {
                    if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                        connected.countDown();
                    }
                },
                zooKeeper.getSessionId(),
                zooKeeper.getSessionPasswd());
        try {
            if (!connected.await(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("Could not attach to the session to expire it");
            }
        } finally {
            twin.close();
        }
    }
}
