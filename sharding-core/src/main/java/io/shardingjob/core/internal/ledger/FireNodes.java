package io.shardingjob.core.internal.ledger;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * How a commit treats fire nodes. A node created by one claimer fails the request of every other one that tries to
 * create it too (a multi-operation is all or nothing), costing it a second request. So the instance that owns the job's
 * lowest item creates the node of the fire after the one it claims ahead ({@code createAhead}, marked {@link
 * LedgerRules#AHEAD}; null for none), and the others take the node of the fire they claim ahead to exist ({@code
 * assumeExists}): a period later, it does; when it does not, the server's refusal corrects the guess at the cost of one
 * more request.
 */
public record FireNodes(boolean assumeExists, @Nullable Instant createAhead) {

    /** The node of the new claims' fire is created unless this instance knows it exists; no other node is. */
    public static final FireNodes AS_NEEDED = new FireNodes(false, null);
}
