package io.shardingjob.core.internal.requests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.ZooKeeperTestSupport;
import io.shardingjob.core.testing.RequestCounter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.common.ZKConfig;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The multis of one client's jobs sent together while one is on its way, against a real ZooKeeper server. The first
 * request is held back until the test has queued the others, so that they are certain to be merged.
 */
class ClientMultisTest extends ZooKeeperTestSupport {

    private CuratorFramework client;

    private ClientRequests requests;

    private RequestCounter counter;

    private final CompletableFuture<Void> gate = new CompletableFuture<>();

    private final AtomicBoolean first = new AtomicBoolean(true);

    private final ClientMultis multis = new ClientMultis();

    /** Sends as the ledger does, holding the first request back until the gate opens. */
    private final ClientMultis.Sender held = (name, ops) -> first.getAndSet(false)
            ? gate.thenCompose(open -> requests.sendMulti(name, ops))
            : requests.sendMulti(name, ops);

    @BeforeEach
    void connect() throws Exception {
        client = newClient();
        client.create().forPath("/m");
        requests = new ClientRequests(client, "Ledger");
        counter = RequestCounter.attachTo(client);
    }

    @Test
    void multisAskedForWhileOneIsOnItsWayGoInOneRequestAndEachGetsItsOwnAnswer() throws Exception {
        List<CompletableFuture<MultiAnswer>> answers = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            answers.add(multis.send(held, "Create", List.of(create("/m/n" + i), create("/m/n" + i + "-x"))));
        }
        long before = counter.counts().ledger().total();
        gate.complete(null);

        for (CompletableFuture<MultiAnswer> answer : answers) {
            assertThat(answer.join().ok()).isTrue();
            assertThat(answer.join().results()).hasSize(2).allMatch(OpResult.CreateResult.class::isInstance);
        }
        assertThat(client.getChildren().forPath("/m")).hasSize(40);
        assertThat(counter.counts().ledger().total() - before)
                .as("the held request, then the 19 queued behind it in one")
                .isEqualTo(2);
    }

    @Test
    void aRefusedPartGetsItsOwnRefusalWhileThePartsAroundItAreWrittenAllTheSame() throws Exception {
        client.create().forPath("/m/versioned", bytes("v0"));
        CompletableFuture<MultiAnswer> held = multis.send(this.held, "Create", List.of(create("/m/held")));
        CompletableFuture<MultiAnswer> before = multis.send(this.held, "Create", List.of(create("/m/before")));
        CompletableFuture<MultiAnswer> refused = multis.send(
                this.held,
                "SetData",
                List.of(create("/m/refused-create"), Op.setData(requests.full("/m/versioned"), bytes("v9"), 7)));
        CompletableFuture<MultiAnswer> after = multis.send(this.held, "Create", List.of(create("/m/after")));
        gate.complete(null);

        assertThat(held.join().ok()).isTrue();
        assertThat(before.join().ok()).isTrue();
        assertThat(after.join().ok()).isTrue();
        MultiAnswer refusal = refused.join();
        assertThat(refusal.ok()).isFalse();
        assertThat(refusal.results()).hasSize(2);
        assertThat(refusal.failedAt()).isEqualTo(1);
        assertThat(refusal.errorAt(1)).isEqualTo(KeeperException.Code.BADVERSION);
        assertThat(client.getChildren().forPath("/m"))
                .containsExactlyInAnyOrder("versioned", "held", "before", "after");
    }

    @Test
    void readsGoTogetherAndEachReadAnswersForItself() throws Exception {
        client.create().forPath("/m/a", bytes("A"));
        client.create().forPath("/m/a/child");
        CompletableFuture<MultiAnswer> held = multis.send(this.held, "Multi", List.of(read("/m/a")));
        CompletableFuture<MultiAnswer> listing =
                multis.send(this.held, "Multi", List.of(Op.getChildren(requests.full("/m/a"))));
        CompletableFuture<MultiAnswer> missing = multis.send(this.held, "Multi", List.of(read("/m/none")));
        CompletableFuture<MultiAnswer> data = multis.send(this.held, "Multi", List.of(read("/m/a")));
        gate.complete(null);

        assertThat(((OpResult.GetDataResult) held.join().results().get(0)).getData())
                .isEqualTo(bytes("A"));
        assertThat(((OpResult.GetChildrenResult) listing.join().results().get(0)).getChildren())
                .containsExactly("child");
        assertThat(missing.join().results().get(0)).isInstanceOf(OpResult.ErrorResult.class);
        assertThat(((OpResult.GetDataResult) data.join().results().get(0)).getData())
                .isEqualTo(bytes("A"));
    }

    @Test
    void readsWhoseMergedAnswerWasMoreThanTheClientTakesAreAskedAloneTheNextTime() throws Exception {
        // Each listing answers about 20 kB, under the 48 kB this client takes in one answer; four merged do not.
        for (int listing = 0; listing < 4; listing++) {
            client.create().forPath("/m/big" + listing);
            for (int child = 0; child < 200; child++) {
                client.create().forPath("/m/big" + listing + "/" + "x".repeat(90) + child);
            }
        }
        ZKClientConfig small = new ZKClientConfig();
        small.setProperty(ZKConfig.JUTE_MAXBUFFER, String.valueOf(48 * 1024));
        CuratorFramework tight = closeAfterTest(CuratorFrameworkFactory.builder()
                .connectString(server.getConnectString())
                .namespace(NAMESPACE)
                .sessionTimeoutMs(10_000)
                .connectionTimeoutMs(5_000)
                .retryPolicy(new RetryOneTime(100))
                .zkClientConfig(small)
                .build());
        tight.start();
        assertThat(tight.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        ClientRequests tightRequests = new ClientRequests(tight, "Ledger");
        CompletableFuture<Void> open = new CompletableFuture<>();
        AtomicBoolean firstTight = new AtomicBoolean(true);
        ClientMultis.Sender heldTight = (name, ops) -> firstTight.getAndSet(false)
                ? open.thenCompose(any -> tightRequests.sendMulti(name, ops))
                : tightRequests.sendMulti(name, ops);

        CompletableFuture<MultiAnswer> held = multis.send(heldTight, "Multi", List.of(read("/m")));
        List<CompletableFuture<MultiAnswer>> merged = listBigOnes(heldTight, tightRequests);
        open.complete(null);

        assertThat(held.join().ok()).isTrue();
        for (CompletableFuture<MultiAnswer> listing : merged) {
            assertThatThrownBy(() -> listing.get(30, TimeUnit.SECONDS))
                    .as("the merged answer dropped the connection")
                    .hasCauseInstanceOf(KeeperException.ConnectionLossException.class);
        }
        // Asked again, as the cache does, until the connection is back: then each goes alone and is answered.
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().untilAsserted(() -> {
            for (CompletableFuture<MultiAnswer> listing : listBigOnes(heldTight, tightRequests)) {
                assertThat(((OpResult.GetChildrenResult) listing.get(10, TimeUnit.SECONDS)
                                        .results()
                                        .get(0))
                                .getChildren())
                        .hasSize(200);
            }
        });
    }

    private List<CompletableFuture<MultiAnswer>> listBigOnes(ClientMultis.Sender sender, ClientRequests through) {
        List<CompletableFuture<MultiAnswer>> listings = new ArrayList<>();
        for (int listing = 0; listing < 4; listing++) {
            listings.add(multis.send(sender, "Multi", List.of(Op.getChildren(through.full("/m/big" + listing)))));
        }
        return listings;
    }

    @Test
    void listingsNotReadYetGoAFewARequestAndOnceKnownToBeSmallManyGoTogether() throws Exception {
        for (int i = 0; i < 12; i++) {
            client.create().forPath("/m/l" + i);
        }
        assertThat(requestsToList(12))
                .as("12 listings not read yet, four a request")
                .isGreaterThanOrEqualTo(3);
        assertThat(requestsToList(12))
                .as("the same listings, known to be small: with the held one, in one or two")
                .isLessThanOrEqualTo(2);
    }

    @Test
    void aListingNotReadYetIsReckonedFromItsSiblingsAlreadyRead() throws Exception {
        for (int i = 0; i < 24; i++) {
            client.create().creatingParentsIfNeeded().forPath("/m/fires/f" + i + "/claim");
        }
        assertThat(requestsToList("/m/fires/f", 0, 12))
                .as("the first fires' listings, unknown: four a request")
                .isGreaterThanOrEqualTo(3);
        assertThat(requestsToList("/m/fires/f", 12, 24))
                .as("other fires of the same job, never listed but reckoned from the first: with the held one, in two")
                .isLessThanOrEqualTo(2);
    }

    /** Lists that many nodes behind a held request, and counts the requests it took. */
    private long requestsToList(int nodes) {
        return requestsToList("/m/l", 0, nodes);
    }

    /** Lists the nodes {@code prefix + from .. prefix + (to - 1)} behind a held request, and counts the requests. */
    private long requestsToList(String prefix, int from, int to) {
        CompletableFuture<Void> gate = new CompletableFuture<>();
        AtomicBoolean first = new AtomicBoolean(true);
        ClientMultis.Sender held = (name, ops) -> first.getAndSet(false)
                ? gate.thenCompose(open -> requests.sendMulti(name, ops))
                : requests.sendMulti(name, ops);
        List<CompletableFuture<MultiAnswer>> answers = new ArrayList<>();
        answers.add(multis.send(held, "Multi", List.of(read("/m"))));
        for (int i = from; i < to; i++) {
            answers.add(multis.send(held, "Multi", List.of(Op.getChildren(requests.full(prefix + i)))));
        }
        long before = counter.counts().ledger().total();
        gate.complete(null);
        answers.forEach(CompletableFuture::join);
        return counter.counts().ledger().total() - before;
    }

    @Test
    void aLostConnectionFailsEveryPartOfTheRequest() throws Exception {
        CompletableFuture<MultiAnswer> held = multis.send(this.held, "Create", List.of(create("/m/held")));
        CompletableFuture<MultiAnswer> queued = multis.send(this.held, "Create", List.of(create("/m/queued")));
        server.stop();
        gate.complete(null);

        assertThat(held).failsWithin(java.time.Duration.ofSeconds(20));
        assertThat(queued).failsWithin(java.time.Duration.ofSeconds(20));
    }

    private Op create(String path) {
        return requests.createPersistent(path, new byte[0]);
    }

    private Op read(String path) {
        return Op.getData(requests.full(path));
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
