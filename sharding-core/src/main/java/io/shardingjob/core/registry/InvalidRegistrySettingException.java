package io.shardingjob.core.registry;

/**
 * A {@link RegistryConfiguration} setting that cannot work, named so that whoever set it (a property, a builder call)
 * can be pointed at it.
 */
public final class InvalidRegistrySettingException extends IllegalArgumentException {

    private final String setting;

    InvalidRegistrySettingException(String setting, String message) {
        super(message);
        this.setting = setting;
    }

    /** The name of the {@link RegistryConfiguration} component at fault, such as {@code connectString}. */
    public String setting() {
        return setting;
    }
}
