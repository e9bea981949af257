"""bart: transformers BartForConditionalGeneration, tiny random config (d_model 32, 1+1 layers, 4 heads, vocab 100), no cache, decoder inputs shifted from the encoder's; returns logits."""
import torch
import transformers


class Wrap(torch.nn.Module):
    def __init__(self):
        super().__init__()
        cfg = transformers.BartConfig(vocab_size=100, d_model=32, encoder_layers=1, decoder_layers=1,
                                      encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=64,
                                      decoder_ffn_dim=64, max_position_embeddings=64, use_cache=False)
        self.m = transformers.BartForConditionalGeneration(cfg)

    def forward(self, input_ids):
        return self.m(input_ids=input_ids, use_cache=False).logits


def make_model():
    torch.manual_seed(0)
    return Wrap().eval()


def example_inputs():
    g = torch.Generator().manual_seed(1)
    return (torch.randint(0, 100, (2, 8), generator=g),)
