package io.shardingjob.core.internal.scheduling.session;

import java.util.function.Consumer;

/**
 * The election's word that this instance became or stopped being the leader, for the {@link RegistryReactions}: the
 * election is built before them, as they (and the reconciler they start) need it. They are bound once built, before
 * the job starts and the election can say anything.
 */
public final class LeadershipChanges implements Consumer<Boolean> {

    private volatile Consumer<Boolean> reactions = leader -> {};

    public void reactWith(RegistryReactions registryReactions) {
        this.reactions = registryReactions::leadershipChanged;
    }

    @Override
    public void accept(Boolean leader) {
        reactions.accept(leader);
    }
}
