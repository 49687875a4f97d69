package io.shardingjob.core.internal.requests;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.Stat;

/**
 * Whatever the multis queued behind a request on its way, and whichever of them ZooKeeper refuses, merging them
 * changes nothing but the number of requests: each gets the answer, operation by operation, it would have had sent
 * alone in the same order, and the nodes end as they would have. Checked against a real server, each try against a
 * reference run of the same multis sent one by one.
 */
class ClientMultisPropertiesTest {

    private static TestingServer server;

    private static CuratorFramework client;

    private static ClientRequests requests;

    private static final AtomicInteger TRIES = new AtomicInteger();

    private static final List<String> NAMES = List.of("a", "b", "c");

    @BeforeContainer
    static void startZooKeeper() throws Exception {
        server = new TestingServer(true);
        client = CuratorFrameworkFactory.newClient(server.getConnectString(), new RetryOneTime(100));
        client.start();
        client.blockUntilConnected(10, TimeUnit.SECONDS);
        requests = new ClientRequests(client, "Ledger");
    }

    @AfterContainer
    static void stopZooKeeper() throws Exception {
        client.close();
        server.close();
    }

    /** One operation on one of a few nodes, as a template to apply under a root of the try's own. */
    record Step(String kind, String name, int version) {

        Op under(String root) {
            String path = requests.full(root + "/" + name);
            return switch (kind) {
                case "create" -> requests.createPersistent(root + "/" + name, new byte[] {1});
                case "delete" -> Op.delete(path, version);
                case "set" -> Op.setData(path, new byte[] {2}, version);
                default -> Op.check(path, version);
            };
        }
    }

    @Property(tries = 60)
    void mergedMultisGetTheAnswersTheyWouldHaveHadSentOneByOne(@ForAll("multis") List<List<Step>> multis)
            throws Exception {
        int tryNumber = TRIES.incrementAndGet();
        String alone = "/alone" + tryNumber;
        String merged = "/merged" + tryNumber;
        client.create().forPath(alone);
        client.create().forPath(merged);

        List<List<String>> aloneAnswers = new ArrayList<>();
        for (List<Step> multi : multis) {
            aloneAnswers.add(
                    codes(requests.sendMulti("Multi", ops(multi, alone)).join()));
        }

        CompletableFuture<Void> gate = new CompletableFuture<>();
        AtomicBoolean first = new AtomicBoolean(true);
        ClientMultis.Sender held = (name, ops) -> first.getAndSet(false)
                ? gate.thenCompose(open -> requests.sendMulti(name, ops))
                : requests.sendMulti(name, ops);
        ClientMultis coalescer = new ClientMultis(null);
        List<CompletableFuture<MultiAnswer>> answers = new ArrayList<>();
        for (List<Step> multi : multis) {
            answers.add(coalescer.send(
                    new ClientMultis.Part(held, "Multi", ops(multi, merged), ClientMultis.LEDGER_READS)));
        }
        gate.complete(null);
        List<List<String>> mergedAnswers = new ArrayList<>();
        for (CompletableFuture<MultiAnswer> answer : answers) {
            mergedAnswers.add(codes(answer.get(20, TimeUnit.SECONDS)));
        }

        assertThat(mergedAnswers).isEqualTo(aloneAnswers);
        assertThat(tree(merged)).isEqualTo(tree(alone));
    }

    @Provide
    Arbitrary<List<List<Step>>> multis() {
        Arbitrary<Step> step = Combinators.combine(
                        Arbitraries.of("create", "delete", "set", "check"),
                        Arbitraries.of(NAMES),
                        Arbitraries.integers().between(-1, 1))
                .as(Step::new);
        return step.list().ofMinSize(1).ofMaxSize(3).list().ofMinSize(2).ofMaxSize(8);
    }

    private static List<Op> ops(List<Step> multi, String root) {
        return multi.stream().map(step -> step.under(root)).toList();
    }

    /** The answer of each operation: its kind of result, or the error it was refused with. */
    private static List<String> codes(MultiAnswer answer) {
        List<String> codes = new ArrayList<>();
        for (OpResult result : answer.results()) {
            codes.add(
                    result instanceof OpResult.ErrorResult error
                            ? "error " + error.getErr()
                            : result.getClass().getSimpleName());
        }
        return codes;
    }

    /** Each node under the root with its data version. */
    private static TreeMap<String, Integer> tree(String root) throws Exception {
        TreeMap<String, Integer> tree = new TreeMap<>();
        for (String child : client.getChildren().forPath(root)) {
            Stat stat = client.checkExists().forPath(root + "/" + child);
            tree.put(child, stat.getVersion());
        }
        return tree;
    }
}
