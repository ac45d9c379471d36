/* The Vulkan backend's PCI matching and formatting (pure C, no Vulkan), compiled into this
 * runtime too so both backends name a device's PCI identity the same way. */
#include "../../VulkanBackend/Runtime/pci_identity.c"
