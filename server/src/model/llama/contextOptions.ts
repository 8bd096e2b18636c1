/** Context options every llama.cpp context of one model shares. */

/** node-llama-cpp's `lora` option for a LoRA adapter GGUF (LoadModelOptions.adapterPath), if any. */
export function adapterOption(settings: { adapterPath?: string }): { lora?: { adapters: { filePath: string }[] } } {
  return settings.adapterPath ? { lora: { adapters: [{ filePath: settings.adapterPath }] } } : {};
}
