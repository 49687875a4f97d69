package io.shardingjob.core.internal.ledger;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * How a commit treats fire nodes. A node created by one claimer fails the request of every other one that tries to
 * create it too (a multi-operation is all or nothing), which then costs it a second request. So the instance that
 * owns the job's lowest item creates the node of the fire after the one it claims ahead, marked as created ahead,
 * and the others take the node of the fire they claim ahead to exist: a period later, it does.
 *
 * @param assumeExists whether the node of the new claims' fire is taken to exist; when it does not, the server's
 *     refusal corrects the guess at the cost of one more request
 * @param createAhead a later fire whose node to create, marked {@link LedgerRules#AHEAD}; null for none
 */
public record FireNodes(boolean assumeExists, @Nullable Instant createAhead) {

    /** The node of the new claims' fire is created unless this instance knows it exists; no other node is. */
    public static final FireNodes AS_NEEDED = new FireNodes(false, null);
}
