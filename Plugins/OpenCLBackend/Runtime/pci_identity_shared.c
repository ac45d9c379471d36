/* The Vulkan backend's PCI matching and formatting and its libdrm listing (pure C, no
 * Vulkan), compiled into this runtime too so both backends name a device's PCI identity the same way. */
#include "../../VulkanBackend/Runtime/pci_identity.c"
#include "../../VulkanBackend/Runtime/drm.c"
